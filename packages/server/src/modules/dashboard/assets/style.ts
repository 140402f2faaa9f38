/** The dashboard's style sheet (served as /dashboard/assets/dashboard.css; no inline styles, so CSP needs no 'unsafe-inline'). */
export const DASHBOARD_CSS = String.raw`
:root { --ink: #1d2330; --muted: #667085; --line: #e3e7ef; --soft: #f5f7fb; --brand: #3454d1; --ok: #0f7b3f; --bad: #b42318; --warn: #b54708; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--soft); }
a { color: var(--brand); text-decoration: none; }
a:hover { text-decoration: underline; }
header { display: flex; align-items: center; gap: 1rem; padding: .6rem 1.25rem; background: #fff; border-bottom: 1px solid var(--line); flex-wrap: wrap; }
header .brand { font-weight: 700; font-size: 1.05rem; }
nav { display: flex; gap: .25rem; flex: 1; flex-wrap: wrap; }
nav a { padding: .35rem .7rem; border-radius: 6px; color: var(--ink); }
nav a.current { background: var(--brand); color: #fff; }
#who { color: var(--muted); font: 12px ui-monospace, monospace; }
main { max-width: 1200px; margin: 1.25rem auto; padding: 0 1.25rem; }
section { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 1rem 1.25rem; margin-bottom: 1rem; }
h1 { font-size: 1.4rem; margin: 0 0 1rem; }
h2 { font-size: 1.1rem; margin: 0 0 .75rem; }
h3 { font-size: .95rem; margin: 1rem 0 .5rem; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: .75rem; text-transform: uppercase; letter-spacing: .03em; color: var(--muted); font-weight: 600; }
td.empty { text-align: center; padding: 1rem; }
td .mono { word-break: break-all; }
.mono, code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; }
pre { background: var(--soft); padding: .75rem; border-radius: 8px; overflow: auto; white-space: pre-wrap; word-break: break-all; }
.money { font-variant-numeric: tabular-nums; white-space: nowrap; }
.muted { color: var(--muted); }
.badge { display: inline-block; padding: .05rem .5rem; border-radius: 999px; font-size: .75rem; font-weight: 600; background: var(--soft); border: 1px solid var(--line); }
.badge-approved, .badge-active, .badge-completed, .badge-delivered, .badge-settled { color: var(--ok); border-color: #b7e4c7; background: #ecfbf1; }
.badge-rejected, .badge-failed, .badge-closed, .badge-exception, .badge-production { color: var(--bad); border-color: #f5c2bd; background: #fef3f2; }
.badge-pending, .badge-hold, .badge-authorized, .badge-processing, .badge-frozen, .badge-sandbox { color: var(--warn); border-color: #f9dbaf; background: #fffaeb; }
dl.fields { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1.25rem; margin: 0; }
dl.fields dt { color: var(--muted); }
dl.fields dd { margin: 0; }
form.inline, form.filters { display: flex; flex-wrap: wrap; gap: .75rem; align-items: flex-end; }
form.filters { margin-bottom: 1rem; }
label { display: flex; flex-direction: column; gap: .2rem; font-size: .8rem; color: var(--muted); }
label.check { flex-direction: row; align-items: center; color: var(--ink); }
input, select { font: inherit; padding: .35rem .5rem; border: 1px solid #cfd5e2; border-radius: 6px; color: var(--ink); background: #fff; min-width: 8rem; }
label.check input { min-width: 0; }
button { font: inherit; padding: .4rem .9rem; border-radius: 6px; border: 1px solid var(--brand); background: var(--brand); color: #fff; cursor: pointer; }
button.secondary { background: #fff; color: var(--brand); }
button.danger { background: #fff; color: var(--bad); border-color: var(--bad); }
button:disabled { opacity: .45; cursor: default; }
.buttons { display: flex; gap: .5rem; margin-bottom: .75rem; }
form .buttons { margin-bottom: 0; }
.pager { display: flex; gap: .5rem; align-items: center; justify-content: flex-end; margin-top: .75rem; }
.pager span { margin-right: auto; }
.error { border: 1px solid #f5c2bd; background: #fef3f2; color: var(--bad); border-radius: 8px; padding: .6rem .8rem; margin: .5rem 0; }
.error ul { margin: .4rem 0 0; padding-left: 1.2rem; }
.error pre { background: #fff; color: var(--ink); margin: .4rem 0 0; }
.ok { color: var(--ok); }
.secret { border: 1px solid #f9dbaf; background: #fffaeb; border-radius: 8px; padding: .6rem .8rem; margin-top: .75rem; }
.result:empty { display: none; }
.result { margin-top: .5rem; }
.control h2 { font-size: 1rem; }
#signin { max-width: 26rem; margin: 12vh auto; }
#signin form { display: flex; flex-direction: column; gap: .75rem; }
#signin input { width: 100%; }
#balance-chart { width: 100%; height: auto; max-height: 260px; }
#balance-chart .grid { stroke: var(--line); }
#balance-chart .axis { fill: var(--muted); font-size: 11px; }
#balance-chart .line { fill: none; stroke: var(--brand); stroke-width: 2; }
#balance-chart .line.total { stroke: #98a2b3; stroke-dasharray: 4 3; stroke-width: 1.5; }
#balance-chart .point { fill: #fff; stroke: var(--brand); stroke-width: 2; }
#flow-chart { width: 100%; height: auto; max-height: 260px; margin-top: .5rem; }
#flow-chart .zero { stroke: #98a2b3; }
#flow-chart .axis { fill: var(--muted); font-size: 11px; }
#flow-chart .in { fill: var(--ok); }
#flow-chart .out { fill: var(--bad); }
#flow-chart .held { fill: none; stroke: var(--warn); stroke-width: 2; stroke-dasharray: 5 3; }
form.filters label.wide { flex: 1 1 20rem; }
form.filters label.wide input { width: 100%; }
.owner .id, code.id { font-size: 11px; color: var(--muted); user-select: all; }
.picker-label { font-size: .8rem; color: var(--muted); }
.picker { display: flex; flex-direction: column; gap: .3rem; }
.picker .picker-search { display: flex; gap: .3rem; }
.picker select { max-width: 32rem; }
.search-note { margin: 0 0 .5rem; }
details { margin-top: .75rem; }
.badge-resolve_errors { color: var(--bad); border-color: #f5c2bd; background: #fef3f2; }
.badge-in_progress, .badge-pending_manual_review, .badge-unverified { color: var(--warn); border-color: #f9dbaf; background: #fffaeb; }
.verification { border-top: 1px solid var(--line); padding-top: .5rem; margin-top: .5rem; }
.verification:first-of-type { border-top: 0; margin-top: 0; padding-top: 0; }
.verification h3 { margin: .25rem 0; display: flex; gap: .4rem; align-items: center; flex-wrap: wrap; }
.verification p { margin: .25rem 0; }
table.verification-errors td[data-col=type] code { white-space: nowrap; }
table.verification-errors td[data-col=field] { overflow-wrap: anywhere; min-width: 10rem; }
table.verification-errors td[data-col=accepted] { font-size: 11px; color: var(--muted); max-width: 16rem; }
table.verification-errors td[data-col=reason] { min-width: 14rem; }
#owner-table td, #document-table td { overflow-wrap: anywhere; }
.named .mono { display: block; font-size: 11px; }
summary { cursor: pointer; color: var(--muted); }
`;
