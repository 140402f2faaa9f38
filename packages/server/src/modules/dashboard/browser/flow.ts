/**
 * The account page's charts (bundled into /dashboard/assets/app.js), drawn as inline SVG from the
 * balance-history extension (the account's ledger postings and holds): the balance over time, and
 * the money flow (what came in, what went out, what is held). Amounts stay BigInt until the last
 * step: a position in pixels, the only place a fraction is allowed.
 */
import { fields, formatMoney, h, minorToDecimal, money, svg, table } from './lib.js';
import type { BalancePoint, Currency } from './wire.js';

/**
 * A step chart of the available balance (and the total, dashed, when holds differ). Amounts are
 * BigInt until the last step: a position in pixels, the only place a fraction is allowed.
 */
export function balanceChart(points: BalancePoint[]): Element {
  const first = points[0];
  const last = points[points.length - 1];
  if (!first || !last) return h('p', { class: 'muted', id: 'chart-empty' }, 'No balance changes yet.');
  const W = 720, H = 220, left = 110, right = 16, top = 14, bottom = 30;
  const available = points.map(function (p) { return BigInt(p.balance.amount); });
  const totals = points.map(function (p) { return BigInt(p.totalBalance.amount); });
  const times = points.map(function (p) { return Date.parse(p.at); });
  let low = 0n, high = 0n;
  for (const v of available.concat(totals)) { if (v < low) low = v; if (v > high) high = v; }
  if (high === low) high = low + 1n;
  const t0 = Date.parse(first.at), t1 = Date.parse(last.at);
  const x = function (i: number): number { return points.length === 1 ? left + (W - left - right) / 2 : left + ((times[i] ?? t0) - t0) / (t1 - t0 || 1) * (W - left - right); };
  const y = function (v: bigint): number { return top + (H - top - bottom) * (1 - Number(((v - low) * 100000n) / (high - low)) / 100000); };
  const step = function (values: bigint[]): string {
    let d = 'M' + left + ' ' + y(0n < low ? low : 0n);
    values.forEach(function (v, i) { d += ' H' + x(i).toFixed(1) + ' V' + y(v).toFixed(1); });
    return d + ' H' + (W - right);
  };
  const currency = first.balance.currency;
  const label = function (v: bigint): string { return minorToDecimal(v, currency.decimals) + ' ' + currency.code; };
  const held = totals.some(function (v, i) { return v !== available[i]; });
  const lastAvailable = available[available.length - 1] ?? 0n;
  return svg('svg', { id: 'balance-chart', viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': 'Balance over time', 'data-points': points.length, 'data-last': lastAvailable.toString() },
    svg('line', { x1: left, y1: y(high), x2: W - right, y2: y(high), class: 'grid' }),
    svg('line', { x1: left, y1: y(low), x2: W - right, y2: y(low), class: 'grid' }),
    svg('text', { x: left - 6, y: y(high) + 4, class: 'axis', 'text-anchor': 'end' }, label(high)),
    svg('text', { x: left - 6, y: y(low) + 4, class: 'axis', 'text-anchor': 'end' }, label(low)),
    svg('text', { x: left, y: H - 8, class: 'axis' }, first.at.slice(0, 16).replace('T', ' ')),
    svg('text', { x: W - right, y: H - 8, class: 'axis', 'text-anchor': 'end' }, last.at.slice(0, 16).replace('T', ' ')),
    held ? svg('path', { d: step(totals), class: 'line total' }) : null,
    svg('path', { d: step(available), class: 'line' }),
    points.map(function (p, i) {
      const v = available[i] ?? 0n;
      return svg('circle', { cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: 3.5, class: 'point', 'data-amount': v.toString() },
        svg('title', {}, p.at + ': ' + formatMoney(p.balance)));
    }));
}


/** One slice of time in the money-flow chart: what came in and went out in it, and what was held at its end. */
export interface FlowBucket {
  id: string;
  from: number;
  to: number;
  in: bigint;
  out: bigint;
  held: bigint;
}

export interface Flow {
  currency: Currency;
  in: bigint;
  out: bigint;
  held: bigint;
  opening: bigint;
  buckets: FlowBucket[];
}

const MAX_BUCKETS = 12;

/**
 * The flow behind a balance history. Each point is the account after one instant's change: a rise
 * of the posted total is money in, a fall is money out (two opposite movements in the same instant
 * net out: the history has one point per instant), and total minus available is what holds keep.
 * When earlier points were left out (hasMore), the first point is the opening balance, not a flow.
 */
export function flowOf(points: BalancePoint[], hasMore: boolean): Flow | null {
  const first = points[0];
  const last = points[points.length - 1];
  if (!first || !last) return null;
  const t0 = Date.parse(first.at), t1 = Date.parse(last.at);
  const count = Math.max(1, Math.min(MAX_BUCKETS, points.length));
  const width = (t1 - t0) / count;
  const buckets: FlowBucket[] = [];
  for (let i = 0; i < count; i++) buckets.push({ id: String(i), from: t0 + i * width, to: i === count - 1 ? t1 : t0 + (i + 1) * width, in: 0n, out: 0n, held: 0n });
  const opening = hasMore ? BigInt(first.totalBalance.amount) : 0n;
  let previous = opening;
  let totalIn = 0n, totalOut = 0n;
  // Each point falls in one slice; a slice's held amount is that of its last point, carried forward.
  const heldAt: (bigint | undefined)[] = buckets.map(function () { return undefined; });
  points.forEach(function (p, i) {
    const total = BigInt(p.totalBalance.amount);
    const index = width > 0 ? Math.min(count - 1, Math.floor((Date.parse(p.at) - t0) / width)) : count - 1;
    const bucket = buckets[index];
    if (!bucket) return;
    if (!(hasMore && i === 0)) {
      const change = total - previous;
      if (change > 0n) { bucket.in += change; totalIn += change; }
      if (change < 0n) { bucket.out -= change; totalOut -= change; }
    }
    heldAt[index] = total - BigInt(p.balance.amount);
    previous = total;
  });
  let held = 0n;
  buckets.forEach(function (bucket, i) {
    held = heldAt[i] ?? held;
    bucket.held = held;
  });
  const lastHeld = BigInt(last.totalBalance.amount) - BigInt(last.balance.amount);
  return { currency: first.balance.currency, in: totalIn, out: totalOut, held: lastHeld, opening: opening, buckets: buckets };
}

/** The money-flow view: the figures (in, out, held now) and a bar chart of them over time. */
export function moneyFlow(points: BalancePoint[], hasMore: boolean): Element {
  const flow = flowOf(points, hasMore);
  if (!flow) return h('p', { class: 'muted', id: 'flow-empty' }, 'No money has moved yet.');
  const currency = flow.currency;
  const amount = function (v: bigint): { amount: bigint; currency: Currency } { return { amount: v, currency: currency }; };
  const stamp = function (t: number): string { return new Date(t).toISOString().slice(0, 16).replace('T', ' '); };
  return h('div', {},
    fields([
      hasMore ? ['Opening balance', money(amount(flow.opening), { id: 'flow-opening' })] : null,
      ['Came in', money(amount(flow.in), { id: 'flow-in' })],
      ['Went out', money(amount(flow.out), { id: 'flow-out' })],
      ['Held now', money(amount(flow.held), { id: 'flow-held' })],
    ]),
    flowChart(flow),
    hasMore ? h('p', { class: 'muted' }, 'From the latest ' + points.length + ' balance changes.') : null,
    h('details', {}, h('summary', {}, 'By period'),
      table<FlowBucket>([
        { title: 'From', key: 'from', cell: function (b) { return stamp(b.from); } },
        { title: 'To', key: 'to', cell: function (b) { return stamp(b.to); } },
        { title: 'In', key: 'in', cell: function (b) { return money(amount(b.in)); } },
        { title: 'Out', key: 'out', cell: function (b) { return money(amount(b.out)); } },
        { title: 'Held at the end', key: 'held', cell: function (b) { return money(amount(b.held)); } },
      ], flow.buckets, { id: 'flow-table' })));
}

/** Bars up for money in, down for money out, per slice of time; a line for what is held. */
function flowChart(flow: Flow): Element {
  const W = 720, H = 220, left = 110, right = 16, top = 14, bottom = 30;
  const middle = top + (H - top - bottom) / 2;
  const half = (H - top - bottom) / 2;
  let high = 1n;
  for (const b of flow.buckets) for (const v of [b.in, b.out, b.held]) if (v > high) high = v;
  const scale = function (v: bigint): number { return half * Number((v * 100000n) / high) / 100000; };
  const slot = (W - left - right) / flow.buckets.length;
  const bar = Math.max(2, slot * 0.36);
  const label = function (v: bigint): string { return minorToDecimal(v, flow.currency.decimals) + ' ' + flow.currency.code; };
  const say = function (v: bigint): string { return formatMoney({ amount: v, currency: flow.currency }); };
  let heldPath = '';
  flow.buckets.forEach(function (b, i) {
    const y = (middle - scale(b.held)).toFixed(1);
    heldPath += (i === 0 ? 'M' : ' L') + (left + i * slot).toFixed(1) + ' ' + y + ' H' + (left + (i + 1) * slot).toFixed(1);
  });
  return svg('svg', { id: 'flow-chart', viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': 'Money in, out and held over time', 'data-in': flow.in.toString(), 'data-out': flow.out.toString(), 'data-held': flow.held.toString(), 'data-buckets': flow.buckets.length },
    svg('line', { x1: left, y1: middle, x2: W - right, y2: middle, class: 'zero' }),
    svg('text', { x: left - 6, y: top + 4, class: 'axis', 'text-anchor': 'end' }, '+' + label(high)),
    svg('text', { x: left - 6, y: middle + 4, class: 'axis', 'text-anchor': 'end' }, '0'),
    svg('text', { x: left - 6, y: H - bottom + 4, class: 'axis', 'text-anchor': 'end' }, '-' + label(high)),
    svg('text', { x: left, y: H - 8, class: 'axis' }, new Date(flow.buckets[0]?.from ?? 0).toISOString().slice(0, 16).replace('T', ' ')),
    svg('text', { x: W - right, y: H - 8, class: 'axis', 'text-anchor': 'end' }, new Date(flow.buckets[flow.buckets.length - 1]?.to ?? 0).toISOString().slice(0, 16).replace('T', ' ')),
    flow.buckets.map(function (b, i) {
      const x = left + i * slot + slot / 2;
      return svg('g', { class: 'bucket', 'data-in': b.in.toString(), 'data-out': b.out.toString(), 'data-held': b.held.toString() },
        b.in > 0n ? svg('rect', { class: 'in', x: (x - bar).toFixed(1), y: (middle - scale(b.in)).toFixed(1), width: bar.toFixed(1), height: Math.max(1, scale(b.in)).toFixed(1) }, svg('title', {}, 'In: ' + say(b.in))) : null,
        b.out > 0n ? svg('rect', { class: 'out', x: x.toFixed(1), y: middle.toFixed(1), width: bar.toFixed(1), height: Math.max(1, scale(b.out)).toFixed(1) }, svg('title', {}, 'Out: ' + say(b.out))) : null);
    }),
    svg('path', { d: heldPath, class: 'held' }, svg('title', {}, 'Held')),
    svg('g', { class: 'legend' },
      svg('rect', { x: W - 200, y: top - 10, width: 10, height: 10, class: 'in' }), svg('text', { x: W - 186, y: top, class: 'axis' }, 'in'),
      svg('rect', { x: W - 150, y: top - 10, width: 10, height: 10, class: 'out' }), svg('text', { x: W - 136, y: top, class: 'axis' }, 'out'),
      svg('line', { x1: W - 95, y1: top - 5, x2: W - 80, y2: top - 5, class: 'held' }), svg('text', { x: W - 76, y: top, class: 'axis' }, 'held')));
}
