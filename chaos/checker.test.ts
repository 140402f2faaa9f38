import { describe, expect, it } from 'vitest';
import { check, type Snapshot } from './checker.js';
import type { Op } from './history.js';
import { describePlan, FAULT_KINDS, planFaults } from './plan.js';

const A = 'InternalAccount:a';
const EXT = 'LedgerAccount:external-usd';
const TRANSIT = 'LedgerAccount:transit-usd';

function op(id: number, fields: Partial<Op> & Pick<Op, 'kind' | 'status'>): Op {
  return { id, key: `key-${id}`, attempts: 1, invokedAt: 0, ...fields };
}

/**
 * A clean world: a funding of 1000 and a transfer-out of 300 acknowledged, one unknown funding of
 * 200 that never happened and one unknown of 50 that did, a card authorization and its clearing of
 * 40; every event received.
 */
function world(): { history: Op[]; snapshot: Snapshot } {
  const history: Op[] = [
    op(0, { kind: 'customer', status: 'ok' }),
    op(1, { kind: 'fund', status: 'ok', tag: 'chaos-1-f1', accountId: A, currency: 'USD', amount: '1000' }),
    op(2, { kind: 'transfer-out', status: 'ok', tag: 'chaos-1-t2', accountId: A, currency: 'USD', amount: '300' }),
    op(3, { kind: 'fund', status: 'unknown', tag: 'chaos-1-f3', accountId: A, currency: 'USD', amount: '200' }),
    op(4, { kind: 'fund', status: 'unknown', tag: 'chaos-1-f4', accountId: A, currency: 'USD', amount: '50' }),
    op(5, { kind: 'card-auth', status: 'ok', tag: 'chaos-1-c5', accountId: A, currency: 'USD', amount: '40' }),
    op(6, { kind: 'card-clear', status: 'ok', cardTransactionId: 'CardTransaction:c5', accountId: A, currency: 'USD', amount: '40' }),
    op(7, { kind: 'fund', status: 'fail', tag: 'chaos-1-f7', accountId: A, currency: 'USD', amount: '5', httpStatus: 404 }),
  ];
  const snapshot: Snapshot = {
    transactions: [
      { id: 'Transaction:f1', kind: 'FUNDING', status: 'COMPLETED', description: 'Bank transfer from chaos-1-f1', quoteId: null },
      { id: 'Transaction:t2', kind: 'TRANSFER', status: 'COMPLETED', description: 'chaos-1-t2', quoteId: null },
      { id: 'Transaction:f4', kind: 'FUNDING', status: 'COMPLETED', description: 'Bank transfer from chaos-1-f4', quoteId: null },
      { id: 'CardTransaction:c5', kind: 'CARD', status: 'SETTLED', description: null, quoteId: null },
    ],
    cardTransactions: [{ id: 'CardTransaction:c5', descriptor: 'CHAOS chaos-1-c5 100', accountId: A, status: 'SETTLED' }],
    entries: [
      { id: 'e1', kind: 'INCOMING_PAYMENT', transactionId: 'Transaction:f1' },
      { id: 'e2', kind: 'TRANSFER_OUT_DEBIT', transactionId: 'Transaction:t2' },
      { id: 'e3', kind: 'TRANSFER_OUT_SETTLED', transactionId: 'Transaction:t2' },
      { id: 'e4', kind: 'INCOMING_PAYMENT', transactionId: 'Transaction:f4' },
      { id: 'e5', kind: 'CARD_CLEARING', transactionId: 'CardTransaction:c5' },
    ],
    postings: [
      { entryId: 'e1', accountId: A, currency: 'USD', amount: 1000n },
      { entryId: 'e1', accountId: EXT, currency: 'USD', amount: -1000n },
      { entryId: 'e2', accountId: A, currency: 'USD', amount: -300n },
      { entryId: 'e2', accountId: TRANSIT, currency: 'USD', amount: 300n },
      { entryId: 'e3', accountId: TRANSIT, currency: 'USD', amount: -300n },
      { entryId: 'e3', accountId: EXT, currency: 'USD', amount: 300n },
      { entryId: 'e4', accountId: A, currency: 'USD', amount: 50n },
      { entryId: 'e4', accountId: EXT, currency: 'USD', amount: -50n },
      { entryId: 'e5', accountId: A, currency: 'USD', amount: -40n },
      { entryId: 'e5', accountId: EXT, currency: 'USD', amount: 40n },
    ],
    accounts: [
      { id: A, purpose: 'CUSTOMER', currency: 'USD', totalMinor: 710n, heldMinor: 0n, mayGoNegative: false },
      { id: TRANSIT, purpose: 'TRANSIT', currency: 'USD', totalMinor: 0n, heldMinor: 0n, mayGoNegative: false },
      { id: EXT, purpose: 'EXTERNAL', currency: 'USD', totalMinor: 0n, heldMinor: 0n, mayGoNegative: true },
    ],
    events: [
      { id: 'Event:1', type: 'INCOMING_PAYMENT' },
      { id: 'Event:2', type: 'OUTGOING_PAYMENT' },
    ],
    received: ['Event:1', 'Event:2', 'Event:2'],
    reconcile: [],
  };
  return { history, snapshot };
}

describe('the chaos checker', () => {
  it('finds a clean history valid, with the unknown move that took effect counted once', () => {
    const { history, snapshot } = world();
    const verdict = check(history, snapshot);
    expect(verdict.findings).toEqual([]);
    expect(verdict).toMatchObject({ valid: true, acknowledged: 4, unknown: 2, unknownApplied: 1, lost: 0, duplicated: 0, phantom: 0 });
  });

  it('catches a lost move: acknowledged, not in the final state', () => {
    const { history, snapshot } = world();
    snapshot.transactions = snapshot.transactions.filter((t) => t.id !== 'Transaction:t2');
    snapshot.entries = snapshot.entries.filter((e) => e.transactionId !== 'Transaction:t2');
    snapshot.postings = snapshot.postings.filter((p) => p.entryId !== 'e2' && p.entryId !== 'e3');
    snapshot.accounts[0]!.totalMinor = 1010n;
    const verdict = check(history, snapshot);
    expect(verdict.valid).toBe(false);
    expect(verdict.lost).toBe(1);
    expect(verdict.findings.find((f) => f.kind === 'lost')?.detail).toContain('transfer-out #2');
  });

  it('catches an acknowledged move whose transaction was written without its ledger entry', () => {
    const { history, snapshot } = world();
    snapshot.entries = snapshot.entries.filter((e) => e.id !== 'e1');
    snapshot.postings = snapshot.postings.filter((p) => p.entryId !== 'e1');
    snapshot.accounts[0]!.totalMinor = -290n;
    const verdict = check(history, snapshot);
    expect(verdict.lost).toBe(1);
    expect(verdict.valid).toBe(false);
  });

  it('catches a duplicated move: an unknown funding, retried, that took effect twice', () => {
    const { history, snapshot } = world();
    snapshot.transactions.push({ id: 'Transaction:f4b', kind: 'FUNDING', status: 'COMPLETED', description: 'Bank transfer from chaos-1-f4', quoteId: null });
    snapshot.entries.push({ id: 'e6', kind: 'INCOMING_PAYMENT', transactionId: 'Transaction:f4b' });
    snapshot.postings.push({ entryId: 'e6', accountId: A, currency: 'USD', amount: 50n }, { entryId: 'e6', accountId: EXT, currency: 'USD', amount: -50n });
    snapshot.accounts[0]!.totalMinor = 760n;
    const verdict = check(history, snapshot);
    expect(verdict.duplicated).toBe(1);
    expect(verdict.findings.find((f) => f.kind === 'duplicated')?.detail).toContain('fund #4');
    expect(verdict.valid).toBe(false);
  });

  it('catches an entry booked twice inside one transaction', () => {
    const { history, snapshot } = world();
    snapshot.entries.push({ id: 'e7', kind: 'TRANSFER_OUT_DEBIT', transactionId: 'Transaction:t2' });
    snapshot.postings.push({ entryId: 'e7', accountId: A, currency: 'USD', amount: -300n }, { entryId: 'e7', accountId: TRANSIT, currency: 'USD', amount: 300n });
    snapshot.accounts[0]!.totalMinor = 410n;
    snapshot.accounts[1]!.totalMinor = 300n;
    const verdict = check(history, snapshot);
    expect(verdict.duplicated).toBe(1);
    expect(verdict.valid).toBe(false);
  });

  it('catches a phantom move: money moved that no client invoked', () => {
    const { history, snapshot } = world();
    snapshot.transactions.push({ id: 'Transaction:x', kind: 'FUNDING', status: 'COMPLETED', description: 'Bank transfer from nobody', quoteId: null });
    snapshot.entries.push({ id: 'e8', kind: 'INCOMING_PAYMENT', transactionId: 'Transaction:x' });
    snapshot.postings.push({ entryId: 'e8', accountId: A, currency: 'USD', amount: 25n }, { entryId: 'e8', accountId: EXT, currency: 'USD', amount: -25n });
    snapshot.accounts[0]!.totalMinor = 735n;
    const verdict = check(history, snapshot);
    expect(verdict.phantom).toBeGreaterThanOrEqual(1);
    // The funding no client made also breaks conservation: more money inside than came in.
    expect(verdict.findings.some((f) => f.kind === 'ledgerImbalance' && f.detail.includes('not conserved'))).toBe(true);
    expect(verdict.valid).toBe(false);
  });

  it('catches a refused move that took effect anyway', () => {
    const { history, snapshot } = world();
    snapshot.transactions.push({ id: 'Transaction:f7', kind: 'FUNDING', status: 'COMPLETED', description: 'Bank transfer from chaos-1-f7', quoteId: null });
    snapshot.entries.push({ id: 'e9', kind: 'INCOMING_PAYMENT', transactionId: 'Transaction:f7' });
    snapshot.postings.push({ entryId: 'e9', accountId: A, currency: 'USD', amount: 5n }, { entryId: 'e9', accountId: EXT, currency: 'USD', amount: -5n });
    snapshot.accounts[0]!.totalMinor = 715n;
    const verdict = check(history, snapshot);
    expect(verdict.phantom).toBe(1);
    expect(verdict.findings[0]?.detail).toContain('refused');
  });

  it('catches an imbalance: an entry whose postings do not sum to zero', () => {
    const { history, snapshot } = world();
    snapshot.postings.find((p) => p.entryId === 'e1' && p.accountId === EXT)!.amount = -999n;
    const verdict = check(history, snapshot);
    expect(verdict.ledgerImbalance).toBeGreaterThanOrEqual(2); // the entry, and USD as a whole
    expect(verdict.valid).toBe(false);
  });

  it('catches a balance that drifted from its postings, and money not conserved', () => {
    const { history, snapshot } = world();
    snapshot.accounts[0]!.totalMinor = 711n;
    const verdict = check(history, snapshot);
    expect(verdict.findings.map((f) => f.detail).join('\n')).toMatch(/holds 711, its postings sum to 710[\s\S]*not conserved/);
    expect(verdict.valid).toBe(false);
  });

  it('catches a funding booked with another amount than the client sent (conservation)', () => {
    const { history, snapshot } = world();
    for (const p of snapshot.postings) if (p.entryId === 'e1') p.amount = p.amount > 0 ? 1100n : -1100n;
    snapshot.accounts[0]!.totalMinor = 810n;
    const verdict = check(history, snapshot);
    expect(verdict.findings.map((f) => f.detail)).toEqual(['money not conserved in USD: accounts hold 810, funding in less money out is 710']);
  });

  it('catches a negative balance', () => {
    const { history, snapshot } = world();
    snapshot.accounts[0]!.heldMinor = 800n;
    const verdict = check(history, snapshot);
    expect(verdict.negativeBalances).toBe(1);
    expect(verdict.valid).toBe(false);
  });

  it("counts reconcile()'s own violations", () => {
    const { history, snapshot } = world();
    snapshot.reconcile = [{ check: 'held equals active holds', detail: 'x holds 5, active holds 0' }];
    expect(check(history, snapshot)).toMatchObject({ ledgerImbalance: 1, valid: false });
  });

  it('catches an undelivered event, and one received that was never committed', () => {
    const { history, snapshot } = world();
    snapshot.events.push({ id: 'Event:test', type: 'TEST' }); // never retried: not required to arrive
    snapshot.received = ['Event:1', 'Event:9'];
    const verdict = check(history, snapshot);
    expect(verdict.undeliveredEvents).toBe(1);
    expect(verdict.findings.find((f) => f.kind === 'undeliveredEvents')?.detail).toContain('Event:2');
    expect(verdict.findings.find((f) => f.kind === 'phantom')?.detail).toContain('Event:9');
    expect(verdict.valid).toBe(false);
  });
});

/** Books a transfer out of `amount` from A in `snapshot`, as the service would: its transaction (named by `tag`), debit and settlement. */
function bookTransfer(snapshot: Snapshot, id: string, tag: string, amount: bigint): void {
  snapshot.transactions.push({ id: `Transaction:${id}`, kind: 'TRANSFER', status: 'COMPLETED', description: `chaos agent ${tag}`, quoteId: null });
  snapshot.entries.push({ id: `${id}-debit`, kind: 'TRANSFER_OUT_DEBIT', transactionId: `Transaction:${id}` }, { id: `${id}-settled`, kind: 'TRANSFER_OUT_SETTLED', transactionId: `Transaction:${id}` });
  snapshot.postings.push(
    { entryId: `${id}-debit`, accountId: A, currency: 'USD', amount: -amount },
    { entryId: `${id}-debit`, accountId: TRANSIT, currency: 'USD', amount },
    { entryId: `${id}-settled`, accountId: TRANSIT, currency: 'USD', amount: -amount },
    { entryId: `${id}-settled`, accountId: EXT, currency: 'USD', amount },
  );
  snapshot.accounts[0]!.totalMinor -= amount;
}

/**
 * The clean world, with an agent's spends: 100 acknowledged APPROVED at once (#8); 300 waiting for
 * approval (#9) that the platform approved (#10); 700 waiting and never approved (#11); 1200
 * refused over the per-transaction limit (#12); 50 unknown that never happened (#13); 250 waiting
 * (#14) whose approval FAILED (#15: the funds were gone by then).
 */
function agentWorld(): { history: Op[]; snapshot: Snapshot } {
  const { history, snapshot } = world();
  const spend = (id: number, fields: Partial<Op> & Pick<Op, 'status'>) => op(id, { kind: 'agent-transfer-out', tag: `chaos-1-a${id}`, accountId: A, currency: 'USD', ...fields });
  history.push(
    spend(8, { status: 'ok', amount: '100', actionStatus: 'APPROVED', resultId: 'AgentAction:8' }),
    spend(9, { status: 'ok', amount: '300', actionStatus: 'PENDING_APPROVAL', resultId: 'AgentAction:9' }),
    op(10, { kind: 'agent-approve', status: 'ok', tag: 'chaos-1-a9', actionId: 'AgentAction:9', accountId: A, currency: 'USD', amount: '300', actionStatus: 'APPROVED' }),
    spend(11, { status: 'ok', amount: '700', actionStatus: 'PENDING_APPROVAL', resultId: 'AgentAction:11' }),
    spend(12, { status: 'fail', amount: '1200', httpStatus: 403, error: 'PER_TRANSACTION_LIMIT' }),
    spend(13, { status: 'unknown', amount: '50' }),
    spend(14, { status: 'ok', amount: '250', actionStatus: 'PENDING_APPROVAL', resultId: 'AgentAction:14' }),
    op(15, { kind: 'agent-approve', status: 'ok', tag: 'chaos-1-a14', actionId: 'AgentAction:14', accountId: A, currency: 'USD', amount: '250', actionStatus: 'FAILED' }),
  );
  bookTransfer(snapshot, 'a8', 'chaos-1-a8', 100n);
  bookTransfer(snapshot, 'a9', 'chaos-1-a9', 300n);
  return { history, snapshot };
}

describe("the chaos checker on an agent's spends", () => {
  it('finds the agent world valid: at once, after approval, waiting, refused and unknown each as they should be', () => {
    const { history, snapshot } = agentWorld();
    const verdict = check(history, snapshot);
    expect(verdict.findings).toEqual([]);
    expect(verdict).toMatchObject({ valid: true, acknowledged: 10, unknown: 3, unknownApplied: 1 });
  });

  it('catches a lost agent spend: acknowledged APPROVED, not in the final state', () => {
    const { history, snapshot } = agentWorld();
    snapshot.transactions = snapshot.transactions.filter((t) => t.id !== 'Transaction:a8');
    const verdict = check(history, snapshot);
    expect(verdict.lost).toBe(1);
    expect(verdict.findings.find((f) => f.kind === 'lost')?.detail).toContain('agent-transfer-out #8');
    expect(verdict.valid).toBe(false);
  });

  it('catches a lost approval: the platform was told the spend went ahead, and it is not there', () => {
    const { history, snapshot } = agentWorld();
    snapshot.transactions = snapshot.transactions.filter((t) => t.id !== 'Transaction:a9');
    const verdict = check(history, snapshot);
    expect(verdict.findings.filter((f) => f.kind === 'lost').map((f) => f.detail.split(' was')[0])).toEqual(['agent-transfer-out #9 key key-9', 'agent-approve #10 key key-10']);
    expect(verdict.valid).toBe(false);
  });

  it('catches a duplicated agent spend: an unknown one, retried with its key, that took effect twice', () => {
    const { history, snapshot } = agentWorld();
    bookTransfer(snapshot, 'a13', 'chaos-1-a13', 50n);
    bookTransfer(snapshot, 'a13b', 'chaos-1-a13', 50n);
    const verdict = check(history, snapshot);
    expect(verdict.duplicated).toBe(1);
    expect(verdict.findings.find((f) => f.kind === 'duplicated')?.detail).toContain('agent-transfer-out #13');
    expect(verdict.valid).toBe(false);
  });

  it('catches a phantom agent spend: one that waited for an approval never given, yet moved money', () => {
    const { history, snapshot } = agentWorld();
    bookTransfer(snapshot, 'a11', 'chaos-1-a11', 70n);
    const verdict = check(history, snapshot);
    expect(verdict.findings.find((f) => f.kind === 'phantom')?.detail).toMatch(/agent-transfer-out #11 .*never gave/);
    expect(verdict.valid).toBe(false);
  });

  it('lets an approval whose answer never came have taken effect once, and no more', () => {
    const { history, snapshot } = agentWorld();
    history.push(op(16, { kind: 'agent-approve', status: 'unknown', tag: 'chaos-1-a11', actionId: 'AgentAction:11', accountId: A, currency: 'USD', amount: '700' }));
    bookTransfer(snapshot, 'a11', 'chaos-1-a11', 70n);
    expect(check(history, snapshot)).toMatchObject({ valid: true, unknownApplied: 2 }); // #4 of the clean world, and #16
    bookTransfer(snapshot, 'a11b', 'chaos-1-a11', 70n);
    const verdict = check(history, snapshot);
    expect(verdict.findings.filter((f) => f.kind === 'duplicated').map((f) => f.detail.split(' (')[0])).toEqual(['agent-transfer-out #11 key key-11', 'agent-approve #16 key key-16']);
    expect(verdict.valid).toBe(false);
  });

  it('catches phantom agent spends: refused over its limit, or approved into FAILED, yet moved money', () => {
    const { history, snapshot } = agentWorld();
    bookTransfer(snapshot, 'a12', 'chaos-1-a12', 12n);
    bookTransfer(snapshot, 'a14', 'chaos-1-a14', 25n);
    const verdict = check(history, snapshot);
    const phantoms = verdict.findings.filter((f) => f.kind === 'phantom').map((f) => f.detail);
    expect(phantoms.some((d) => d.startsWith('agent-transfer-out #12') && d.includes('refused (HTTP 403)'))).toBe(true);
    expect(phantoms.some((d) => d.startsWith('agent-approve #15') && d.includes('FAILED'))).toBe(true);
    expect(phantoms.some((d) => d.startsWith('agent-transfer-out #14') && d.includes('never gave'))).toBe(true);
    expect(verdict.valid).toBe(false);
  });
});

describe('the fault plan', () => {
  const shape = { seconds: 60, apiProcesses: 3, workers: 2, receivers: 2 };

  it('is the same for the same seed, and another for another seed', () => {
    expect(planFaults(1, shape)).toEqual(planFaults(1, shape));
    expect(describePlan(7, shape, planFaults(7, shape))).toBe(describePlan(7, shape, planFaults(7, shape)));
    expect(planFaults(2, shape)).not.toEqual(planFaults(1, shape));
  });

  it('meets every fault kind, within the load, targets in range', () => {
    for (const seed of [1, 2, 3, 123456789]) {
      const faults = planFaults(seed, shape);
      expect(new Set(faults.map((f) => f.kind))).toEqual(new Set(FAULT_KINDS));
      for (const f of faults) {
        expect(f.at).toBeGreaterThanOrEqual(2);
        expect(f.at).toBeLessThanOrEqual(57);
        if (f.kind === 'kill-api') expect(f.target).toBeLessThan(3);
        if (f.kind === 'kill-worker' || f.kind.startsWith('receiver')) expect(f.target).toBeLessThan(2);
      }
      expect(faults.map((f) => f.at)).toEqual([...faults.map((f) => f.at)].sort((a, b) => a - b));
    }
  });

  it('never plans a failover without --failover', () => {
    expect(planFaults(5, shape).some((f) => f.kind === 'failover')).toBe(false);
  });
});

describe('the chaos checker and quotes that were never executed', () => {
  const quoteWorld = (entries: Snapshot['entries']) => {
    const { history, snapshot } = world();
    history.push(op(20, { kind: 'quote', status: 'ok', resultId: 'Quote:q20' }));
    snapshot.transactions.push({ id: 'Transaction:q20', kind: 'QUOTE', status: 'FAILED', description: null, quoteId: 'Quote:q20' });
    snapshot.entries.push(...entries);
    return check(history, snapshot);
  };

  it("counts a created quote's own transaction, never executed and booking nothing, as no phantom", () => {
    expect(quoteWorld([]).findings).toEqual([]);
  });

  it('still catches such a quote when money moved under it without an execution', () => {
    const verdict = quoteWorld([{ id: 'eq', kind: 'QUOTE_DEBIT', transactionId: 'Transaction:q20' }]);
    expect(verdict.findings.some((f) => f.kind === 'phantom' && f.detail.includes('Transaction:q20'))).toBe(true);
    expect(verdict.valid).toBe(false);
  });
});
