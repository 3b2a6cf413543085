/**
 * The inspector's workflow views: the app's workflow instances filtered by status, and the one
 * selected with its step timeline and buttons that cancel, resume, terminate or signal it
 * (`POST /_baton/workflow`, as trusted code).
 */
import type { InspectedWorkflow } from './InspectorSnapshot.ts';

const STATUSES = ['running', 'waiting', 'paused', 'completed', 'failed', 'cancelled', 'terminated'];

/** The section's markup: the filter and the controls stay put; the tables re-render. */
export const WORKFLOWS_HTML = `
<section class="wide"><h2>Workflows</h2>
  <p><label for="wf-status">status</label>
    <select id="wf-status" data-testid="wf-status"><option value="">all</option>${STATUSES.map((s) => `<option>${s}</option>`).join('')}</select>
    <output id="wf-counts" data-testid="wf-counts"></output></p>
  <div id="workflows"></div>
  <div id="wf-detail" hidden>
    <h3 id="wf-title" data-testid="wf-title"></h3>
    <div id="wf-timeline" data-testid="wf-timeline"></div>
    <form id="wf-actions" class="buttons">
      <button type="button" data-wf-action="cancel">cancel</button>
      <button type="button" data-wf-action="resume" class="secondary">resume</button>
      <button type="button" data-wf-action="terminate" class="secondary">terminate</button>
      <label for="wf-event">event</label><input id="wf-event" placeholder="e.g. shipped">
      <label for="wf-payload">event data</label><textarea id="wf-payload">{}</textarea>
      <button type="button" data-wf-action="signal">signal</button>
      <output id="wf-result" data-testid="wf-result"></output>
    </form>
  </div>
</section>`;

const esc = (value: unknown) =>
  String(value).replace(
    /[&<>"]/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!,
  );
const $ = (id: string) => document.getElementById(id)!;
const time = (at: number | undefined) =>
  at === undefined ? '' : new Date(at).toLocaleTimeString();
const keyOf = (w: InspectedWorkflow) => `${w.workflow}/${w.id}`;

let latest: readonly InspectedWorkflow[] = [];
let selected: string | undefined;

/** Renders the list (by the chosen status) and the selected instance's timeline. */
export function renderWorkflows(workflows: readonly InspectedWorkflow[]): void {
  latest = workflows;
  const status = ($('wf-status') as HTMLSelectElement).value;
  const counts = new Map<string, number>();
  for (const w of workflows) counts.set(w.status, (counts.get(w.status) ?? 0) + 1);
  $('wf-counts').textContent = [...counts].map(([s, n]) => `${s} ${n}`).join(' · ');
  const shown = workflows.filter((w) => status === '' || w.status === status);
  $('workflows').innerHTML =
    shown.length === 0
      ? `<p class="empty">${workflows.length === 0 ? 'no workflow instance yet' : `no instance is ${esc(status)}`}</p>`
      : `<table><thead><tr><th>workflow</th><th>instance</th><th>status</th><th>steps</th><th>started</th></tr></thead><tbody>${shown
          .map(
            (w) =>
              `<tr data-testid="wf-${esc(keyOf(w))}" data-wf="${esc(keyOf(w))}" class="pick"><td><code>${esc(w.workflow)}</code></td><td><code>${esc(w.id)}</code></td><td class="${esc(w.status)}">${esc(w.status)}</td><td class="num">${w.steps.length}</td><td>${time(w.startedAt)}</td></tr>`,
          )
          .join('')}</tbody></table>`;
  const current = workflows.find((w) => keyOf(w) === selected);
  $('wf-detail').hidden = !current;
  if (!current) return;
  const { error, progress, continued } = current;
  $('wf-title').textContent = [
    `${keyOf(current)} — ${current.status}${error ? ` (${error})` : ''}`,
    ...(progress === undefined ? [] : [progress]),
    ...(continued === undefined ? [] : [`continued as new ${continued}×`]),
  ].join(' · ');
  $('wf-timeline').innerHTML =
    `<table><thead><tr><th>#</th><th>command</th><th>state</th><th>attempts</th><th>issued</th><th>took</th></tr></thead><tbody>${current.steps
      .map(
        (e) =>
          `<tr data-testid="wf-step-${e.seq}"><td class="num">${e.seq}</td><td><code>${esc(e.kind)}</code> ${esc(e.name)}</td><td class="${esc(e.state)}">${esc(e.state)}${e.error ? `: ${esc(e.error)}` : ''}</td><td class="num">${e.attempts ?? ''}</td><td>${time(e.at)}</td><td class="num">${e.endedAt === undefined ? '' : `${e.endedAt - e.at} ms`}</td></tr>`,
      )
      .join('')}</tbody></table>`;
}

/** Wires the filter, the row picks and the action buttons; `act` POSTs `/_baton/<action>`. */
export function bindWorkflowViews(act: (action: string, body: unknown) => Promise<Response>): void {
  $('wf-status').addEventListener('change', () => renderWorkflows(latest));
  $('workflows').addEventListener('click', (event) => {
    const row = (event.target as HTMLElement).closest<HTMLElement>('tr[data-wf]');
    if (!row) return;
    selected = row.dataset.wf;
    $('wf-result').textContent = '';
    renderWorkflows(latest);
  });
  $('wf-actions').addEventListener('click', async (event) => {
    const button = (event.target as HTMLElement).closest<HTMLButtonElement>('[data-wf-action]');
    const current = latest.find((w) => keyOf(w) === selected);
    if (!button || !current) return;
    const action = button.dataset.wfAction!;
    const result = $('wf-result');
    let payload: unknown;
    try {
      payload = JSON.parse(($('wf-payload') as HTMLTextAreaElement).value || '{}');
    } catch {
      result.textContent = 'the payload is not JSON';
      return;
    }
    const event_ = ($('wf-event') as HTMLInputElement).value.trim();
    result.textContent = `${action}…`;
    const response = await act('workflow', {
      action,
      workflow: current.workflow,
      id: current.id,
      ...(action === 'signal' ? { event: event_, payload } : {}),
    });
    const answer = await response.json();
    result.textContent = answer.error
      ? `${answer.error.code}: ${answer.error.message}`
      : `${action}: accepted`;
  });
}
