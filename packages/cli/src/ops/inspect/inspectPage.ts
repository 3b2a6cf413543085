/**
 * `baton inspect`'s page: health and queues, dead letters, paused actors, a search by actor id,
 * and one actor whole (state, what holds it, history, inbox, dead letters, held sends, timers, a
 * workflow's steps). Plain
 * script, no build: it reads `/_baton/api/…` and renders tables; ids of any length wrap, never widen the
 * layout, and travel URL-encoded (`#actor=<id>`). Action buttons show only with actions allowed.
 */

import { escapeHtml } from '../../escapeHtml.ts';

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d1d22;background:#f7f7f9}
header{display:flex;gap:1rem;align-items:baseline;padding:.8rem 1.2rem;background:#23232b;color:#fff;flex-wrap:wrap}
header h1{font-size:1.1rem;margin:0}#mode{padding:.1rem .5rem;border-radius:4px;background:#3a6}
#mode.readonly{background:#666}main{max-width:80rem;margin:0 auto;padding:1rem;display:grid;gap:1rem}
section{background:#fff;border:1px solid #ddd;border-radius:6px;padding:.8rem 1rem;min-width:0}
h2{font-size:1rem;margin:.2rem 0 .6rem}table{border-collapse:collapse;width:100%;table-layout:fixed}
th,td{text-align:left;border-bottom:1px solid #eee;padding:.3rem .4rem;vertical-align:top}
code,pre,td{overflow-wrap:anywhere;word-break:break-word}pre{white-space:pre-wrap;margin:0;max-height:24rem;overflow:auto}
code,pre{font:12px ui-monospace,monospace}.bad{color:#b00}.ok{color:#070}.empty{color:#777}
button{font:inherit;padding:.15rem .6rem;margin:0 .2rem .2rem 0}input{font:inherit;padding:.3rem;width:min(40rem,100%)}
dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.2rem 1rem;margin:0}dt{color:#555}dd{margin:0;min-width:0}`;

/** The page's shell; `/_baton/inspect.js` fills it. */
export function inspectHtml(page: { table: string; token: string; allowActions: boolean }): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="baton-token" content="${escapeHtml(page.token)}">
    <meta name="baton-actions" content="${page.allowActions ? 'allowed' : 'read-only'}">
    <title>Baton inspector · ${escapeHtml(page.table)}</title>
    <style>${STYLE}</style>
  </head>
  <body>
    <header><h1>Baton inspector</h1><span data-testid="table">${escapeHtml(page.table)}</span>
      <span id="mode" data-testid="mode" class="${page.allowActions ? '' : 'readonly'}">${page.allowActions ? 'actions allowed' : 'read-only'}</span>
      <span id="health" data-testid="health"></span></header>
    <main>
      <section><h2>Queues</h2><div id="queues"></div><dl id="counts"></dl></section>
      <section><h2>Dead letters</h2><div id="dead-letters"></div></section>
      <section><h2>Paused actors</h2><div id="paused" data-testid="paused-actors"></div></section>
      <section><h2>Find an actor</h2>
        <form id="search"><input id="prefix" name="prefix" data-testid="prefix" placeholder="type, or type/start of key: account/al" required>
          <button type="submit">search</button></form><div id="results"></div></section>
      <section id="actor-section" hidden><h2>Actor</h2><div id="actor" data-testid="actor"></div></section>
      <p id="error" class="bad" data-testid="error"></p>
    </main>
    <script type="module" src="/_baton/inspect.js"></script>
  </body>
</html>`;
}

/** The page's script, served as it is. */
export const INSPECT_SCRIPT = `
const meta = (n) => document.querySelector('meta[name="' + n + '"]').content;
const token = meta('baton-token');
const actions = meta('baton-actions') === 'allowed';
const $ = (id) => document.getElementById(id);
const esc = (v) => String(v).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const json = (v) => esc(JSON.stringify(v, null, 2));
const time = (at) => new Date(at).toISOString();
const ms = (v) => v === null || v === undefined ? 'unknown' : v < 1000 ? v + 'ms' : Math.round(v / 1000) + 's';
const table = (head, rows, empty) => rows.length === 0 ? '<p class="empty">' + empty + '</p>'
  : '<table><thead><tr>' + head.map((h) => '<th>' + h + '</th>').join('') + '</tr></thead><tbody>' + rows.join('') + '</tbody></table>';
/** The paused actors the overview lists; it says how many more there are. */
const PAUSED_SHOWN = 50;
const button = (action, data, label) => actions
  ? '<button data-action="' + action + '" data-body="' + esc(JSON.stringify(data)) + '">' + label + '</button>' : '';

async function get(path) {
  const response = await fetch(path);
  const body = await response.json();
  if (body.error) throw new Error(body.error.code + ': ' + body.error.message);
  return body;
}

// A count of a read that stopped at its bound (the health line's "not checked" says which).
const atLeast = (complete) => (complete ? '' : 'at least ');

async function overview() {
  const { status: s, deadLetters } = await get('/_baton/api/overview');
  $('health').textContent = (s.healthy ? 'healthy' : 'attention: ' + s.problems.join('; '))
    + (s.unchecked.length > 0 ? ' (not checked: ' + s.unchecked.join('; ') + ')' : '');
  $('health').className = s.healthy ? 'ok' : 'bad';
  $('queues').innerHTML = table(['queue', 'waiting', 'in flight', 'delayed', 'oldest message'],
    s.queues.map((q) => '<tr data-testid="queue-' + esc(q.name) + '"><td>' + esc(q.name) + '</td><td>' + q.waiting + '</td><td>' + q.inFlight
      + '</td><td>' + q.delayed + '</td><td>' + ms(q.oldestAgeMs) + '</td></tr>'), 'no queue');
  const unknown = s.oldestAges === 'cloudwatch' ? '' : ' (oldest ages unknown: ' + esc(s.oldestAges.unknown) + ')';
  $('counts').innerHTML = [
    ['dead letters', atLeast(s.deadLettersComplete) + '<span data-testid="dead-letter-count">' + s.deadLetters + '</span>'],
    ['parked', atLeast(s.deadLettersComplete) + s.parked.messages + ' message(s) of ' + s.parked.actors + ' paused actor(s)'],
    ['paused', '<span data-testid="paused-count">' + s.paused.actors.length + '</span> actor(s)' + (s.paused.complete ? '' : ' found (not all checked)')],
    ['timers due', s.timersDue], ['sweeper lag', atLeast(s.sweeperLag.complete) + s.sweeperLag.actors + ' actor(s) behind'],
  ].map(([k, v]) => '<dt>' + k + '</dt><dd>' + v + '</dd>').join('') + unknown;
  $('dead-letters').innerHTML = letters(deadLetters, true, 'no dead letter');
  $('paused').innerHTML = paused(s);
}

// Oldest pause first, as baton status reads them: the first PAUSED_SHOWN, and how many more.
function paused(s) {
  const list = s.paused.actors;
  const shown = list.slice(0, PAUSED_SHOWN);
  const rows = shown.map((p) => '<tr data-testid="paused-actor"><td>' + actorLink(p.id) + '</td><td>' + time(p.at)
    + '</td><td><code>' + esc(p.by) + '</code></td><td>' + (Object.hasOwn(s.parked.byActor, p.id) ? s.parked.byActor[p.id] : 0) + '</td></tr>');
  return table(['actor', 'paused since', 'by', 'parked messages'], rows, 'no actor is paused')
    + (list.length > shown.length ? '<p class="empty" data-testid="paused-more">and ' + (list.length - shown.length) + ' more paused actor(s), not listed</p>' : '')
    + (s.paused.complete ? '' : '<p class="empty" data-testid="paused-unchecked">more may be paused: the health line says what was not checked</p>');
}

// What holds an actor: the message failing at the head of its inbox, as baton actors get says it.
const failingLine = (f) => '<code>' + esc(f.messageId) + '</code> at inbox position <code>' + esc(f.inboxPosition) + '</code>, ' + (f.since === null ? 'age unknown' : 'failing since ' + time(f.since)) + ', failed '
  + esc(f.attempts) + ' time(s)' + (f.handler === null ? '' : ' in <code>' + esc(f.handler) + '</code>')
  + (f.error === null ? '' : ': ' + esc(f.error.code + ': ' + f.error.message.replace(/\\s+/g, ' ')))
  + (f.ended ? ' — ended by ' + esc(f.ended.by) + ': its next delivery keeps it as a dead letter, its handler not run'
    : ' — its later messages wait until it is applied or dead-lettered'
      + (f.error === null ? ' (the worker log has its error: "message will be retried", with this message id)' : ''));

function letters(list, withActor, empty) {
  return table([...(withActor ? ['actor'] : []), 'message', 'error', 'attempts', 'at', ''],
    list.map((l) => '<tr data-testid="letter"><td>' + (withActor ? actorLink(l.actorId) + '</td><td>' : '')
      + '<code>' + esc(l.name) + '</code> <code>' + esc(JSON.stringify(l.payload)) + '</code><br><small>' + esc(l.messageId) + '</small>'
      + (l.trail ? trail(l.trail) : '') + '</td><td class="bad">'
      + esc(l.code) + ': ' + esc(l.error) + '</td><td>' + l.attempts + '</td><td>' + time(l.at) + '</td><td>'
      + (l.parked === undefined && l.redrivable ? redriveButton(l) : '')
      + (l.parked === undefined ? button('purge', { actorId: l.actorId, messageId: l.messageId, ...(l.askReply ? { askReply: true } : {}), ...(redriveInFlight(l) ? { inFlight: true } : {}) }, 'purge') : '#' + l.parked)
      + '</td></tr>'), empty);
}

// What operators did to a letter's message, as baton dead-letters show says it: who ended it and
// when; how often it was redriven, the last redrive's time and operator, and whether it is not
// applied yet (do not purge it meanwhile) or did not apply it (the letter was kept again).
const trail = (t) => t.lines.map((line) => '<br><small data-testid="letter-trail" class="'
  + (t.lastRedrive && t.lastRedrive.result === 'notAppliedYet' && line.startsWith('redriven') ? 'bad' : '') + '">' + esc(line) + '</small>').join('');

// Whether a letter's last redrive is not applied yet: a purge now would leave it nothing to apply.
const redriveInFlight = (l) => l.trail?.lastRedrive?.result === 'notAppliedYet';

// A letter a plain redrive refuses is redriven with force, once confirmed, its reason shown: its
// sender was answered DEAD_LETTERED, or it was kept as too old to tell whether it was applied.
const redriveButton = (l) => l.answered !== undefined
  ? needsForce('its sender was answered DEAD_LETTERED')
    + button('redrive', { actorId: l.actorId, messageId: l.messageId, force: true, answered: l.answered }, 'redrive anyway')
  : l.tooOldToTell
    ? needsForce('kept as too old to tell whether it was applied: redrive it only if you know it never was, else purge it')
      + button('redrive', { actorId: l.actorId, messageId: l.messageId, force: true, tooOldToTell: true }, 'redrive anyway')
    : button('redrive', { actorId: l.actorId, messageId: l.messageId }, 'redrive');
const needsForce = (why) => '<small class="bad" data-testid="needs-force">a redrive needs force: ' + esc(why) + '</small><br>';

const actorLink = (id) => '<a href="#actor=' + encodeURIComponent(id) + '" data-testid="actor-link"><code>' + esc(id) + '</code></a>';

async function search(prefix, cursor) {
  const query = '?prefix=' + encodeURIComponent(prefix) + (cursor ? '&cursor=' + encodeURIComponent(cursor) : '');
  const page = await get('/_baton/api/actors' + query);
  const rows = page.actors.map((a) => '<tr><td>' + actorLink(a.id) + '</td><td>' + a.version + '</td><td>'
    + (a.paused ? 'paused, ' + a.parked + ' parked' : 'running') + '</td></tr>');
  $('results').innerHTML = table(['actor', 'version', ''], rows, 'no actor starts with ' + esc(prefix))
    + (page.cursor ? '<button data-more="' + esc(page.cursor) + '" data-prefix="' + esc(prefix) + '">more</button>' : '');
}

async function showActor(id) {
  const a = await get('/_baton/api/actor?id=' + encodeURIComponent(id));
  $('actor-section').hidden = false;
  $('actor').innerHTML = '<dl>'
    + '<dt>actor</dt><dd><code data-testid="actor-id">' + esc(a.id) + '</code></dd>'
    + '<dt>version</dt><dd data-testid="actor-version">' + a.version + '</dd>'
    + '<dt>state version</dt><dd>' + a.stateVersion + '</dd>'
    + '<dt>inbox position</dt><dd>' + esc(a.inboxPosition) + '</dd>'
    + (a.failing ? '<dt>failing message</dt><dd class="bad"><span data-testid="actor-failing">' + failingLine(a.failing) + '</span>'
      + (a.failing.ended ? '' : ' ' + button('end-failing', { actorId: a.id, messageId: a.failing.messageId }, 'end')) + '</dd>' : '')
    + '<dt>paused</dt><dd data-testid="actor-paused">' + (a.paused ? 'since ' + time(a.paused.at) + ' by ' + esc(a.paused.by) + ' '
      + button('resume', { actorId: a.id }, 'resume')
      // A pause would park a failing message and run it again from its first attempt: only with force.
      : 'no ' + (a.failing ? button('pause', { actorId: a.id, force: true }, 'pause anyway (the failing message runs again once resumed)') : button('pause', { actorId: a.id }, 'pause'))) + '</dd>'
    + '<dt>state</dt><dd><pre data-testid="actor-state">' + json(a.state) + '</pre></dd></dl>'
    + '<h2>History (newest first, as the table keeps it)</h2>' + table(['at', 'what', 'message', 'result'], a.history.map((h) => '<tr data-testid="history-entry"><td>'
      + time(h.at) + '</td><td>' + esc(h.kind) + '</td><td><code>' + esc(h.message) + '</code></td><td class="' + (h.ok ? 'ok' : 'bad') + '">'
      + esc(h.result) + '</td></tr>'), 'nothing kept: no outcome, dead letter, timer or held send')
    + '<h2>Inbox (parked while paused, in order)</h2>' + letters(a.inbox, false, 'nothing parked')
    + '<h2>Dead letters</h2>' + letters(a.deadLetters, false, 'none')
    + '<h2>Held sends (drained or not, until a commit or sweep retires them)</h2>' + table(['to', 'message', 'sent', 'receiver has it'], a.heldSends.map((s) => '<tr><td><code>' + esc(s.to)
      + '</code></td><td><code>' + esc(s.name) + '</code></td><td>' + time(s.sentAt) + '</td><td>'
      + (s.delivered === true ? 'yes' : s.delivered === false ? 'not yet' : '—') + '</td></tr>'), 'none')
    + '<h2>Timers</h2>' + table(['id', 'kind', 'message', 'due', ''], a.timers.map((t) => '<tr data-testid="timer"><td><code>' + esc(t.id)
      + '</code></td><td>' + t.kind + (t.deadLettered ? ' (fire held: dead-lettered, or parked at a paused actor)' : '') + '</td><td><code>' + esc(t.name) + '</code></td><td>' + time(t.at) + '</td><td>'
      + (t.kind === 'timer' && (!a.steps || t.id === 'wf:recheck') ? button('cancel-timer', { actorId: a.id, timerId: t.id }, 'cancel') : '') + '</td></tr>'), 'none pending')
    + (a.steps ? '<h2>Workflow steps</h2>' + table(['#', 'kind', 'name', 'state', 'at'], a.steps.map((s) => '<tr><td>' + s.seq
      + '</td><td>' + esc(s.kind) + '</td><td><code>' + esc(s.name) + '</code></td><td>' + esc(s.state) + '</td><td>' + time(s.at) + '</td></tr>'), 'no step yet') : '');
}

async function run(task) {
  try { $('error').textContent = ''; await task(); } catch (error) { $('error').textContent = String(error.message ?? error); }
}

function route() {
  const match = /^#actor=(.*)$/.exec(location.hash);
  if (match) run(() => showActor(decodeURIComponent(match[1])));
}

document.addEventListener('click', (event) => {
  const more = event.target.closest('button[data-more]');
  if (more) return run(() => search(more.dataset.prefix, more.dataset.more));
  const act = event.target.closest('button[data-action]');
  if (!act) return;
  const body = JSON.parse(act.dataset.body);
  if (act.dataset.action === 'end-failing' && !confirm('End this failing message? Its next delivery keeps it as a dead letter'
    + ' without running its handler, and the actor goes on with the messages behind it.')) return;
  if (act.dataset.action === 'purge' && !confirm('Purge this dead letter? It is never applied.'
    + (body.inFlight ? " Its last redrive is not applied yet: purged now, that redrive applies nothing. To have it applied, do not purge: wait for its actor's turn." : '')
    + (body.askReply ? ' It is the reply to an ask: if the ask still waits, its timeout is left to fire, and its continuation runs once, with ASK_TIMEOUT.' : ''))) return;
  if (body.answered !== undefined && !confirm('When it was kept, ' + body.answered
    + '. Redriven, it changes its actor after that answer. Redrive it anyway?')) return;
  if (body.tooOldToTell && !confirm('It was kept as too old to tell whether it was applied: it may have been applied already,'
    + ' and redriven it would be applied twice. Redrive it only if you know it was never applied (else purge it). Redrive it anyway?')) return;
  delete body.answered;
  delete body.tooOldToTell;
  delete body.askReply;
  delete body.inFlight;
  act.disabled = true;
  run(async () => {
    const response = await fetch('/_baton/api/' + act.dataset.action, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-baton-token': token }, body: JSON.stringify(body),
    });
    const answer = await response.json();
    if (answer.error) throw new Error(answer.error.code + ': ' + answer.error.message);
    await overview();
    route();
  });
});
$('search').addEventListener('submit', (event) => {
  event.preventDefault();
  run(() => search($('prefix').value.trim()));
});
window.addEventListener('hashchange', route);
run(overview);
route();
setInterval(() => run(overview), 5000);
`;
