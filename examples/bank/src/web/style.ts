/** The bank page's CSS, injected by the page itself (so every host serves the same look). */
export const BANK_CSS = `
:root { --ink:#182033; --muted:#667089; --line:#e2e6ef; --bg:#f4f6fb; --accent:#2f5bea; --ok:#16803c;
  --bad:#c0262d; font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif; color:var(--ink) }
* { box-sizing:border-box } body { margin:0; background:var(--bg) }
header { display:flex; align-items:center; gap:1rem; padding:1rem 2rem; background:#101828; color:#fff }
header h1 { margin:0; font-size:1.2rem } header a { color:#a9b8ff; font-size:.9rem }
.pill { margin-left:auto; color:#fff; font-size:.8rem; padding:.2rem .7rem; border-radius:99px; background:#344054 }
.pill[data-state=open] { background:#166534 } .pill[data-state=reconnecting] { background:#9a3412 }
main { display:grid; grid-template-columns:minmax(0,1.1fr) minmax(0,1fr); gap:1.2rem; padding:1.5rem 2rem; max-width:76rem; margin:auto }
@media (max-width: 54rem) { main { grid-template-columns:1fr } }
section { background:#fff; border:1px solid var(--line); border-radius:12px; padding:1rem 1.2rem }
h2 { margin:0 0 .7rem; font-size:.8rem; letter-spacing:.07em; text-transform:uppercase; color:var(--muted) }
ol { margin:0; padding-left:1.2rem } ol li { margin:.35rem 0 } code { font:13px ui-monospace,Menlo,monospace; background:#eef1f7; padding:.05rem .3rem; border-radius:4px }
table { width:100%; border-collapse:collapse } th, td { padding:.45rem .3rem; border-bottom:1px solid var(--line); text-align:left }
td.num { text-align:right; font-variant-numeric:tabular-nums; font-size:1.1rem } tr.total th, tr.total td { border-bottom:0; font-weight:700 }
.tag { font-size:.75rem; color:var(--bad); border:1px solid currentColor; border-radius:99px; padding:0 .45rem }
form { display:flex; flex-wrap:wrap; gap:.5rem; align-items:center; margin-top:1rem }
select, input { font:inherit; padding:.35rem .5rem; border:1px solid var(--line); border-radius:8px; background:#fff } input { width:6rem }
button { font:inherit; padding:.4rem 1rem; border:0; border-radius:8px; background:var(--accent); color:#fff; cursor:pointer }
button.danger { background:var(--bad) } button.quiet { background:#eef1f7; color:var(--ink) }
.actions { display:flex; flex-wrap:wrap; gap:.6rem; margin-top:.9rem } output { color:var(--muted) }
.holds { color:var(--ok); font-size:.85rem } .broken { color:var(--bad) }
#log { list-style:none; margin:0; padding:0; max-height:28rem; overflow:auto; font-size:.9rem }
#log li { display:grid; grid-template-columns:5.5rem 1fr; gap:.4rem; padding:.3rem 0; border-bottom:1px dashed var(--line) }
#log time { color:var(--muted); font-variant-numeric:tabular-nums } #log .bad { color:var(--bad) } #log .good { color:var(--ok) }
`;
