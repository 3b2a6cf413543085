/** The shop page's CSS, injected by the page itself (so every host serves the same look). */
export const SHOP_CSS = `
:root { --ink:#182033; --muted:#667089; --line:#e2e6ef; --bg:#f4f6fb; --accent:#2f5bea; --ok:#16803c;
  --bad:#c0262d; --wait:#b45309; font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif; color:var(--ink) }
* { box-sizing:border-box } body { margin:0; background:var(--bg) }
header { display:flex; align-items:center; gap:1rem; padding:1rem 2rem; background:#101828; color:#fff }
header h1 { margin:0; font-size:1.2rem }
.pill { margin-left:auto; color:#fff; font-size:.8rem; padding:.2rem .7rem; border-radius:99px; background:#344054 }
.pill[data-state=open] { background:#166534 } .pill[data-state=reconnecting] { background:#9a3412 }
main { display:grid; grid-template-columns:minmax(0,20rem) minmax(0,1fr); gap:1.2rem; padding:1.5rem 2rem; max-width:76rem; margin:auto }
@media (max-width: 54rem) { main { grid-template-columns:1fr } }
section { background:#fff; border:1px solid var(--line); border-radius:12px; padding:1rem 1.2rem; margin-bottom:1.2rem }
h2 { margin:0 0 .7rem; font-size:.8rem; letter-spacing:.07em; text-transform:uppercase; color:var(--muted) }
h3 { margin:0; font-size:1rem; display:flex; gap:.6rem; align-items:center }
table { width:100%; border-collapse:collapse } th, td { padding:.4rem .3rem; border-bottom:1px solid var(--line); text-align:left }
td.num { text-align:right; font-variant-numeric:tabular-nums }
form { display:flex; flex-wrap:wrap; gap:.5rem; align-items:center }
select, input { font:inherit; padding:.35rem .5rem; border:1px solid var(--line); border-radius:8px; background:#fff } input { width:5rem }
button { font:inherit; padding:.35rem .9rem; border:0; border-radius:8px; background:var(--accent); color:#fff; cursor:pointer }
button.quiet { background:#eef1f7; color:var(--ink) }
.status { font-size:.75rem; padding:.05rem .55rem; border-radius:99px; border:1px solid currentColor; color:var(--muted) }
.status[data-status=completed] { color:var(--ok) } .status[data-status=failed], .status[data-status=cancelled] { color:var(--bad) }
.status[data-status=waiting] { color:var(--wait) }
.stage { font-size:.8rem; color:var(--muted); font-weight:normal }
ol.steps { list-style:none; margin:.6rem 0 0; padding:0 } ol.steps li { display:grid; grid-template-columns:1.4rem 1fr auto; gap:.3rem; padding:.15rem 0 }
ol.steps .done { color:var(--ok) } ol.steps .failed { color:var(--bad) } ol.steps .pending { color:var(--wait) }
.error { margin:1rem 2rem 0; padding:.6rem 1rem; border-radius:8px; background:#fdecec; color:var(--bad) }
ol.steps small { color:var(--muted) } .outcome { margin:.5rem 0 0; color:var(--muted); font-size:.9rem }
`;
