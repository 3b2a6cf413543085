/** The page's style sheet: plain CSS, rendered by the page itself in a `<style>` element. */
export const STYLES = `
:root {
  --bg: #eef1f6;
  --card: #ffffff;
  --ink: #18202b;
  --muted: #667085;
  --line: #e3e7ee;
  --accent: #1d7bf2;
  --accent-ink: #ffffff;
  --danger: #c0362c;
  font-family: system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif;
  color: var(--ink);
  background: var(--bg);
}
* { box-sizing: border-box; }
body { margin: 0; }
button, input, textarea { font: inherit; color: inherit; }
button { cursor: pointer; }
button:disabled { cursor: default; opacity: 0.55; }

.top {
  display: flex;
  align-items: center;
  gap: 16px;
  padding: 14px 24px;
  background: var(--card);
  border-bottom: 1px solid var(--line);
  position: sticky;
  top: 0;
  z-index: 1;
}
.top h1 { margin: 0; font-size: 22px; letter-spacing: -0.02em; flex: 1; white-space: nowrap; }
.top h1 span { font-size: 14px; font-weight: 400; color: var(--muted); margin-left: 8px; }
@media (max-width: 640px) {
  .top { padding: 12px 16px; gap: 10px; }
  .top h1 span { display: none; }
  .add input { width: 110px; }
  .columns { padding: 16px; }
}
.add { display: flex; gap: 6px; }
.add input {
  width: 150px;
  padding: 6px 10px;
  border: 1px solid var(--line);
  border-radius: 8px;
  background: #f8f9fb;
}
.add button {
  padding: 6px 12px;
  border: 1px solid var(--line);
  border-radius: 8px;
  background: var(--card);
}
.connection {
  font-size: 12px;
  padding: 3px 10px;
  border-radius: 999px;
  background: #fdecc8;
  color: #7a4b00;
}
.connection::before { content: '●  '; }
.connection.open { background: #dcf5e3; color: #13692f; }
.connection.closed { background: #fbe0de; color: var(--danger); }

.columns {
  display: grid;
  grid-template-columns: repeat(auto-fit, minmax(300px, 1fr));
  gap: 18px;
  padding: 20px 24px 32px;
  align-items: start;
}
.column {
  background: var(--card);
  border: 1px solid var(--line);
  border-radius: 14px;
  box-shadow: 0 1px 2px rgb(16 24 40 / 6%), 0 4px 12px rgb(16 24 40 / 4%);
  padding: 16px;
  min-width: 0;
}
.column h3 {
  margin: 18px 0 4px;
  font-size: 12px;
  text-transform: uppercase;
  letter-spacing: 0.08em;
  color: var(--muted);
}
.column-head { display: flex; align-items: center; gap: 12px; }
.column-head > div { flex: 1; min-width: 0; }
.column-head h2 { margin: 0; font-size: 18px; }
.stats { margin: 2px 0 0; font-size: 13px; color: var(--muted); }
.close {
  border: none;
  background: none;
  font-size: 20px;
  line-height: 1;
  color: var(--muted);
  padding: 4px 8px;
  border-radius: 6px;
}
.close:hover { background: var(--bg); }

.avatar {
  flex: none;
  display: inline-grid;
  place-items: center;
  border-radius: 50%;
  color: #fff;
  font-weight: 600;
}
.avatar.small { width: 32px; height: 32px; font-size: 14px; }
.avatar.large { width: 44px; height: 44px; font-size: 20px; }

.compose { margin-top: 14px; }
.compose textarea {
  width: 100%;
  resize: vertical;
  padding: 10px 12px;
  border: 1px solid var(--line);
  border-radius: 10px;
  background: #f8f9fb;
}
.compose textarea:focus { outline: 2px solid var(--accent); outline-offset: -1px; background: #fff; }
.compose-bar { display: flex; justify-content: flex-end; align-items: center; gap: 10px; margin-top: 6px; }
.counter { font-size: 12px; color: var(--muted); }
.counter.low { color: var(--danger); }
.primary {
  border: none;
  border-radius: 999px;
  padding: 6px 18px;
  font-weight: 600;
  background: var(--accent);
  color: var(--accent-ink);
}

.follows { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 12px; }
.chip {
  border: 1px solid var(--accent);
  border-radius: 999px;
  padding: 3px 12px;
  font-size: 13px;
  background: var(--card);
  color: var(--accent);
}
.chip.on { background: var(--accent); color: var(--accent-ink); }

.timeline { list-style: none; margin: 0; padding: 0; }
.post { display: flex; gap: 10px; padding: 10px 0; border-top: 1px solid var(--line); }
.post:first-child { border-top: none; }
.post-body { flex: 1; min-width: 0; }
.post-meta { display: flex; align-items: baseline; gap: 6px; font-size: 13px; }
.post-meta time { color: var(--muted); margin-left: auto; }
.you {
  font-size: 11px;
  padding: 0 6px;
  border-radius: 4px;
  background: var(--bg);
  color: var(--muted);
}
.delete {
  border: none;
  background: none;
  color: var(--muted);
  padding: 0 4px;
  font-size: 15px;
  line-height: 1;
}
.delete:hover { color: var(--danger); }
.post-text { margin: 2px 0 0; white-space: pre-wrap; overflow-wrap: anywhere; line-height: 1.4; }
.empty { color: var(--muted); font-size: 14px; margin: 8px 0; }
.error { color: var(--danger); font-size: 13px; margin: 6px 0 0; }
`;
