/**
 * What holds an actor, as the dev inspector renders it: the paused actors of the overview, a
 * word in each actor's row, and in an actor's view its pause and the message failing at the head
 * of its inbox. Markup only (no DOM), every value escaped.
 */
import { escapeHtml } from '../../escapeHtml.ts';
import { errorLine } from '../../inspectedFailing.ts';
import type { ActorPause, InspectedFailing, InspectorSnapshot } from './InspectorSnapshot.ts';

const esc = (value: unknown) => escapeHtml(String(value));
const when = (at: number) => new Date(at).toLocaleString();

/** The paused actors, oldest pause first, and a note when the snapshot lists only the first. */
export function pausedActorsHtml(
  s: Pick<InspectorSnapshot, 'pausedActors' | 'pausedCount' | 'actorsListed'>,
): string {
  if (s.pausedActors.length === 0) {
    return `<p class="empty">no actor is paused${s.actorsListed === 'all' ? '' : ' (of those committed since the app process started)'}</p>`;
  }
  const rows = s.pausedActors.map(
    (p) =>
      `<tr data-testid="paused-${esc(p.id)}" data-actor="${esc(p.id)}" class="pick"><td><code>${esc(p.id)}</code></td><td>${esc(when(p.at))}</td><td><code>${esc(p.by)}</code></td><td class="num">${p.parked}</td></tr>`,
  );
  const more = s.pausedCount - s.pausedActors.length;
  return `<table><thead><tr><th>actor</th><th>paused since</th><th>by</th><th>parked messages</th></tr></thead><tbody>${rows.join('')}</tbody></table>${
    more > 0
      ? `<p class="note" data-testid="paused-more">and ${more} more paused actor(s), not listed</p>`
      : ''
  }`;
}

/** What an actor's row says holds it: `paused`, its failing message's attempts, or nothing. */
export function holdCell(a: { paused?: ActorPause; failing?: InspectedFailing }): string {
  return [
    a.paused ? '<span class="retry">paused</span>' : '',
    a.failing ? `<span class="rejected">failing, ${a.failing.attempts} attempt(s)</span>` : '',
  ]
    .filter((part) => part !== '')
    .join('<br>');
}

/**
 * An actor's view: who paused it and since when, and its failing message (id, inbox position,
 * since when, attempts, and the handler and error when its record keeps them); '' when nothing holds it.
 */
export function holdsHtml(hold: {
  readonly paused?: ActorPause | null;
  readonly failing?: InspectedFailing | null;
}): string {
  const { paused, failing } = hold;
  return [
    paused
      ? `<p class="retry" data-testid="actor-paused">paused since ${esc(when(paused.at))} by <code>${esc(paused.by)}</code>: it applies nothing, and its messages are parked, in order, until it is resumed</p>`
      : '',
    failing
      ? `<p class="rejected" data-testid="actor-failing">failing message <code>${esc(failing.messageId)}</code> at inbox position <code>${esc(failing.inboxPosition)}</code>, ${failing.since === null ? 'age unknown' : `failing since ${esc(when(failing.since))}`}, failed ${esc(failing.attempts)} time(s)${
          failing.handler === null ? '' : ` in <code>${esc(failing.handler)}</code>`
        }${failing.error === null ? '' : `: ${esc(errorLine(failing.error))}`} — ${
          failing.ended
            ? `ended by <code>${esc(failing.ended.by)}</code>: its next delivery keeps it as a dead letter, its handler not run`
            : 'its later messages wait until it is applied or dead-lettered'
        }${
          failing.error === null && !failing.ended
            ? ' (its error shows in the recent turns and in the log: "message will be retried")'
            : ''
        }</p>`
      : '',
  ].join('');
}
