/** The inspector's CSS. */
export const INSPECTOR_CSS = `
:root { --ink:#1d2330; --muted:#6b7385; --line:#e3e6ee; --bg:#f6f7fb; --accent:#4f46e5;
  --ok:#15803d; --bad:#b91c1c; --warn:#b45309; font:14px/1.45 system-ui,-apple-system,sans-serif; color:var(--ink); }
* { box-sizing:border-box } body { margin:0; background:var(--bg) }
header { display:flex; gap:1.2rem; align-items:baseline; padding:.9rem 1.5rem; background:#151a26; color:#fff }
header h1 { font-size:1.05rem; margin:0 } header span { color:#aab1c4; font-size:.85rem }
header output { margin-left:auto; font-size:.85rem; padding:.15rem .6rem; border-radius:99px; background:#2a3145 }
header output[data-state=open] { background:#14532d } header output[data-state=reconnecting] { background:#7c2d12 }
main { display:grid; grid-template-columns:repeat(auto-fit,minmax(30rem,1fr)); gap:1rem; padding:1rem 1.5rem 2rem }
section { background:#fff; border:1px solid var(--line); border-radius:10px; padding:.8rem 1rem; min-width:0 }
section.wide { grid-column:1/-1 }
h2 { font-size:.8rem; text-transform:uppercase; letter-spacing:.06em; color:var(--muted); margin:0 0 .6rem }
table { width:100%; border-collapse:collapse; font-size:.85rem } th,td { text-align:left; padding:.3rem .45rem; border-bottom:1px solid var(--line); vertical-align:top }
th { color:var(--muted); font-weight:600 } td.num { font-variant-numeric:tabular-nums; text-align:right }
code, pre { font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace } pre { margin:0; white-space:pre-wrap; word-break:break-all }
.cards { display:flex; gap:.8rem; flex-wrap:wrap } .card { flex:1; min-width:7rem; border:1px solid var(--line); border-radius:8px; padding:.5rem .7rem }
.card b { display:block; font-size:1.5rem } .card span { color:var(--muted); font-size:.8rem }
.ok { color:var(--ok) } .rejected,.dead-lettered { color:var(--bad) } .retry { color:var(--warn) }
.empty { color:var(--muted); font-style:italic } .note { color:var(--muted); font-size:.85rem; margin:0 0 .5rem }
form { display:grid; grid-template-columns:7rem 1fr; gap:.45rem .7rem; align-items:center }
input, textarea, select { font:inherit; padding:.35rem .5rem; border:1px solid var(--line); border-radius:6px; width:100% }
textarea { font:12px ui-monospace,monospace; min-height:4.5rem }
form label.check { grid-column:2 } form label.check input { width:auto; margin:0 .4rem 0 0 }
tr.pick { cursor:pointer }
button { font:inherit; padding:.35rem .9rem; border:0; border-radius:6px; background:var(--accent); color:#fff; cursor:pointer }
button.secondary { background:#eef0f6; color:var(--ink) } .buttons { grid-column:2; display:flex; gap:.5rem; align-items:center }
`;
