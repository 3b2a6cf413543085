/**
 * The inspector (`/_baton`), in the browser: one live query, `baton.inspector`, over the app's
 * own WebSocket, rendered as tables (the paused actors among them); an actor's history and what
 * holds it (its pause, its failing message), read from the store when its row is picked
 * (`POST /_baton/history`); a form that sends or asks, redrive and purge buttons, and workflow views
 * (instances by status, one instance's step timeline, cancel/resume/terminate/signal), that
 * POST to the dev server. The query and the actions carry this run's token, from the page.
 */
import { BatonClient } from '@baton/client';
import type { HistoryEntry } from '../../actorHistory.ts';
import { holdCell, holdsHtml, pausedActorsHtml } from './holdViews.ts';
import {
  type ActorPause,
  INSPECTOR_QUERY,
  type InspectedFailing,
  type InspectorSnapshot,
} from './InspectorSnapshot.ts';
import { INSPECTOR_CSS } from './inspectorStyle.ts';
import { bindWorkflowViews, renderWorkflows, WORKFLOWS_HTML } from './workflowViews.ts';

const meta = (name: string) =>
  document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)!.content;
const url = meta('baton-url');
const token = meta('baton-token');
// Signs in with the run's token: the dev app lets the inspector in without the app's own auth.
const client = new BatonClient({ url, token, reconnect: { minMs: 250, maxMs: 2_000 } });

/** POSTs one of the inspector's actions (`/_baton/<action>`) with the token. */
const act = (action: string, body: unknown) =>
  fetch(`/_baton/${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-baton-token': token },
    body: JSON.stringify(body),
  });

const esc = (value: unknown) =>
  String(value).replace(
    /[&<>"]/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!,
  );
const json = (value: unknown) => esc(JSON.stringify(value));
const time = (at: number) => new Date(at).toLocaleTimeString();
const table = (head: string[], rows: string[], empty: string) =>
  rows.length === 0
    ? `<p class="empty">${empty}</p>`
    : `<table><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;

document.head.insertAdjacentHTML('beforeend', `<style>${INSPECTOR_CSS}</style>`);
document.getElementById('root')!.innerHTML = `
<header><h1>Baton inspector</h1><span id="backend"></span>
  <output id="connection" data-testid="connection">connecting</output></header>
<main>
  <section class="wide"><h2>Depths</h2><div id="depths" class="cards"></div></section>
  <section><h2>Actor types</h2><div id="types"></div></section>
  <section><h2>Live queries</h2><div id="queries"></div></section>
  <section class="wide"><h2>Actors</h2><p id="actors-note" class="note" data-testid="actors-note" hidden></p><div id="actors"></div></section>
  <section class="wide"><h2>Paused actors</h2><div id="paused" data-testid="paused-actors"></div></section>
  <section class="wide" id="history-section" hidden><h2>History of <code id="history-actor" data-testid="history-actor"></code> (newest first, as the store keeps it)</h2><div id="actor-holds" data-testid="actor-holds"></div><div id="history"></div></section>
  ${WORKFLOWS_HTML}
  <section class="wide"><h2>Recent turns</h2><div id="turns"></div></section>
  <section class="wide"><h2>Dead letters</h2><div id="dead-letters"></div></section>
  <section class="wide"><h2>Send a message</h2>
    <form id="send">
      <label for="to">actor</label><input id="to" name="to" placeholder="type/key, e.g. account/alice" required list="actor-ids">
      <label for="name">message</label><input id="name" name="name" placeholder="e.g. deposit" required list="message-names">
      <label for="payload">payload</label><textarea id="payload" name="payload">{}</textarea>
      <label class="check"><input type="checkbox" id="as-system" name="asSystem"> as trusted code (<code>client.asSystem()</code>): internal handlers too, no <code>authorize</code></label>
      <div class="buttons"><button type="submit" name="kind" value="ask">ask</button>
        <button type="submit" name="kind" value="send" class="secondary">send</button>
        <output id="send-result" data-testid="send-result"></output></div>
    </form>
    <datalist id="actor-ids"></datalist><datalist id="message-names"></datalist>
  </section>
</main>`;

const $ = (id: string) => document.getElementById(id)!;

client.subscribeConnectionState((state) => {
  $('connection').textContent = state;
  $('connection').dataset.state = state;
});

client.subscribe<InspectorSnapshot>(INSPECTOR_QUERY, { token }, (state) => {
  if (state.status === 'error') $('backend').textContent = state.error.message;
  if (state.data) render(state.data);
});

function render(s: InspectorSnapshot): void {
  $('backend').textContent = `${s.backend} · app pid ${s.pid} · up since ${time(s.startedAt)}`;
  const card = (label: string, value: number, id: string) =>
    `<div class="card"><b data-testid="${id}">${value}</b><span>${label}</span></div>`;
  $('depths').innerHTML = [
    card('inbox (waiting + in flight)', s.depths.inbox, 'depth-inbox'),
    card('in flight', s.depths.inFlight, 'depth-in-flight'),
    card('outbox (undrained)', s.depths.outbox, 'depth-outbox'),
    card('dead letters', s.depths.deadLetters, 'depth-dead-letters'),
    card('actors', s.actorCount, 'actor-count'),
    card('turns since start', s.turnCount, 'turn-count'),
    card('connections', s.connections, 'connections'),
  ].join('');
  $('types').innerHTML = table(
    ['type', 'messages', 'instances'],
    s.actorTypes.map(
      (t) =>
        `<tr><td><code>${esc(t.name)}</code></td><td>${t.messages.map(esc).join(', ')}</td><td class="num">${t.instances}</td></tr>`,
    ),
    'no actor types',
  );
  $('queries').innerHTML = table(
    ['query', 'args', 'subscribers'],
    s.queries.map(
      (q) =>
        `<tr><td><code>${esc(q.query)}</code></td><td><code>${json(q.args)}</code></td><td class="num">${q.subscribers}</td></tr>`,
    ),
    'no live query',
  );
  $('actors-note').hidden = s.actorsListed === 'all';
  $('actors-note').textContent =
    s.actorsListed === 'all'
      ? ''
      : 'Only the actors committed since the app process started are listed (local-aws follows the change feed); the others are still in DynamoDB.';
  $('actors').innerHTML = table(
    ['actor', 'version', 'inbox position', 'held', 'state'],
    s.actors.map(
      (a) =>
        `<tr data-testid="actor-${esc(a.id)}" data-actor="${esc(a.id)}" class="pick"><td><code>${esc(a.id)}</code></td><td class="num">${a.ver}</td><td class="num">${esc(a.inboxOffset)}</td><td data-testid="held-${esc(a.id)}">${holdCell(a)}</td><td><pre>${json(a.state)}</pre></td></tr>`,
    ),
    'no actor has committed yet: send one a message below',
  );
  $('paused').innerHTML = pausedActorsHtml(s);
  $('turns').innerHTML = table(
    ['time', 'actor', 'messages', 'duration'],
    s.turns.map(
      (t) =>
        `<tr><td>${time(t.at)}</td><td><code>${esc(t.actorId)}</code></td><td>${t.messages
          .map(
            (m) =>
              `<code>${esc(m.name)}</code> from <code>${esc(m.from)}</code> <span class="${esc(m.outcome)}">${esc(m.outcome)}</span>${m.error ? `: ${esc(m.error)}` : ''}`,
          )
          .join('<br>')}</td><td class="num">${t.durationMs} ms</td></tr>`,
    ),
    'no turn since the app (re)started',
  );
  // A letter no longer kept is forgotten: kept again later, its plain redrive is tried first.
  const listed = new Set(s.deadLetters.map((d) => letterKey(d.actorId, d.messageId)));
  for (const key of refused.keys()) if (!listed.has(key)) refused.delete(key);
  $('dead-letters').innerHTML = table(
    ['time', 'actor', 'message', 'error', 'attempts', ''],
    s.deadLetters.map(
      (d) =>
        `<tr><td>${time(d.at)}</td><td><code>${esc(d.actorId)}</code></td><td><code>${esc(d.name)}</code> <code>${json(d.payload)}</code></td><td class="dead-lettered">${esc(d.error)}</td><td class="num">${d.attempts}</td><td class="letter-actions">${
          d.redrivable ? redriveButton(d.actorId, d.messageId) : 'too large to redrive'
        } ${purgeButton(d.actorId, d.messageId)}</td></tr>`,
    ),
    'no dead letter',
  );
  renderWorkflows(s.workflows);
  if (historyOf !== undefined) void showHistory(historyOf);
  $('actor-ids').innerHTML = s.actors.map((a) => `<option value="${esc(a.id)}">`).join('');
  $('message-names').innerHTML = [...new Set(s.actorTypes.flatMap((t) => t.messages))]
    .map((m) => `<option value="${esc(m)}">`)
    .join('');
}

bindWorkflowViews(act);

/** The actor whose history shows, read again after every snapshot while it shows. */
let historyOf: string | undefined;

async function showHistory(actorId: string): Promise<void> {
  historyOf = actorId;
  const response = await act('history', { actorId });
  const answer = (await response.json()) as {
    history?: HistoryEntry[];
    paused?: ActorPause | null;
    failing?: InspectedFailing | null;
    error?: { code: string; message: string };
  };
  if (historyOf !== actorId) return;
  $('history-section').hidden = false;
  $('history-actor').textContent = actorId;
  $('actor-holds').innerHTML = answer.error ? '' : holdsHtml(answer);
  $('history').innerHTML = answer.error
    ? `<p class="rejected">${esc(answer.error.code)}: ${esc(answer.error.message)}</p>`
    : table(
        ['time', 'what', 'message', 'result'],
        (answer.history ?? []).map(
          (h) =>
            `<tr data-testid="history-entry"><td>${time(h.at)}</td><td>${esc(h.kind)}</td><td><code>${esc(h.message)}</code></td><td class="${h.ok ? 'ok' : 'rejected'}">${esc(h.result)}</td></tr>`,
        ),
        'nothing kept: no outcome, dead letter, timer or held send',
      );
}

for (const list of ['actors', 'paused']) {
  $(list).addEventListener('click', (event) => {
    const row = (event.target as HTMLElement).closest<HTMLTableRowElement>('tr[data-actor]');
    if (row?.dataset.actor) void showHistory(row.dataset.actor);
  });
}

/**
 * Letters whose plain redrive was refused, by actor and message id: the refusal's message and
 * what the button offers instead. The live view redraws the table on every push; their buttons
 * are drawn armed again, so the developer's second click redrives.
 */
const refused = new Map<string, { readonly message: string; readonly offer: string }>();
const letterKey = (actorId: string, messageId: string) => `${actorId}\n${messageId}`;

function redriveButton(actorId: string, messageId: string): string {
  const ids = `data-redrive="${esc(messageId)}" data-actor="${esc(actorId)}"`;
  const armed = refused.get(letterKey(actorId, messageId));
  return armed
    ? `<button ${ids} data-force="yes" title="${esc(armed.message)}">${esc(armed.offer)}</button>`
    : `<button ${ids}>redrive</button>`;
}

/**
 * The purge button of a letter: it forgets the letter without applying it (the engine's
 * `purgeDeadLetter`, `baton dead-letters purge` on a deployment) — what a letter whose sender
 * was told it failed needs when that sender undid or gave up what it asked for.
 */
function purgeButton(actorId: string, messageId: string): string {
  return `<button class="secondary" data-purge="${esc(messageId)}" data-actor="${esc(actorId)}" title="forget this message without applying it">purge</button>`;
}

$('dead-letters').addEventListener('click', async (event) => {
  const clicked = (event.target as HTMLElement).closest<HTMLButtonElement>('button[data-purge]');
  if (!clicked) return;
  const actorId = clicked.dataset.actor ?? '';
  const messageId = clicked.dataset.purge ?? '';
  clicked.disabled = true;
  clicked.textContent = 'purging…';
  const response = await act('purge', { actorId, messageId });
  // Purged, the letter leaves the table at the next push of the live view.
  if (response.ok) return;
  // Refused (the letter of an ask's timeout, say): the refusal says why, and what instead.
  const { error } = (await response.json()) as { error?: { message: string } };
  const shown = Array.from(
    $('dead-letters').querySelectorAll<HTMLButtonElement>('button[data-purge]'),
  ).find((b) => b.dataset.actor === actorId && b.dataset.purge === messageId);
  if (shown) shown.textContent = `failed: ${error?.message}`;
});

$('dead-letters').addEventListener('click', async (event) => {
  const clicked = (event.target as HTMLElement).closest<HTMLButtonElement>('button[data-redrive]');
  if (!clicked) return;
  const actorId = clicked.dataset.actor ?? '';
  const messageId = clicked.dataset.redrive ?? '';
  // The table may be redrawn while the redrive runs: the letter's button, if it is still listed,
  // is looked up again.
  const button = () =>
    Array.from($('dead-letters').querySelectorAll<HTMLButtonElement>('button[data-redrive]')).find(
      (b) => b.dataset.actor === actorId && b.dataset.redrive === messageId,
    );
  clicked.disabled = true;
  const force = clicked.dataset.force === 'yes';
  clicked.textContent = 'redriving…';
  const response = await act('redrive', { actorId, messageId, ...(force ? { force: true } : {}) });
  if (response.ok) {
    refused.delete(letterKey(actorId, messageId));
    return;
  }
  const { error } = (await response.json()) as {
    error?: { message: string; details?: { answered?: string; tooOldToTell?: boolean } };
  };
  // Refused a plain redrive: its sender was told it failed (redriven, it is applied after that
  // answer), or it was kept as too old to tell whether it was applied (redriven, it may be
  // applied twice). A second click redrives it anyway, the developer's choice; the refusal,
  // which says why, is the button's title.
  const why =
    error?.details?.answered !== undefined
      ? 'its sender was told it failed: redrive anyway'
      : error?.details?.tooOldToTell === true
        ? 'kept as too old to tell whether it was applied: redrive anyway, only if it never was'
        : undefined;
  if (!force && why !== undefined) {
    refused.set(letterKey(actorId, messageId), { message: error!.message, offer: why });
    const shown = button();
    if (shown) shown.outerHTML = redriveButton(actorId, messageId);
    return;
  }
  const shown = button();
  if (shown) shown.textContent = `failed: ${error?.message}`;
});

$('send').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = event.target as HTMLFormElement;
  const kind = ((event as SubmitEvent).submitter as HTMLButtonElement | null)?.value ?? 'ask';
  const data = new FormData(form);
  const result = $('send-result');
  const to = String(data.get('to')).trim();
  let payload: unknown;
  try {
    payload = JSON.parse(String(data.get('payload') || '{}'));
  } catch {
    result.textContent = 'the payload is not JSON';
    return;
  }
  const name = String(data.get('name')).trim();
  result.textContent = `${kind}ing…`;
  try {
    const response = await act(data.get('asSystem') ? `${kind}?as=system` : kind, {
      to,
      name,
      payload,
      ...(kind === 'send' ? { idempotencyKey: crypto.randomUUID() } : {}),
    });
    const answer = await response.json();
    if (answer.error) throw answer.error;
    result.textContent =
      kind === 'send'
        ? `accepted: ${JSON.stringify(answer.messageId ?? null)}`
        : `reply: ${JSON.stringify(answer.value ?? null)}`;
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    result.textContent = `${code ?? 'error'}: ${message}`;
  }
});
