/**
 * The dev inspector's markup of what holds an actor: the paused actors (with a note when the
 * snapshot lists only some), an actor row's word, and an actor's view of its pause and failing
 * message — every value escaped, an id or an error holding `<script>` included.
 */
import { describe, expect, it } from 'vitest';
import type { InspectedFailing } from '../../inspectedFailing.ts';
import { holdCell, holdsHtml, pausedActorsHtml } from './holdViews.ts';

const SCRIPT = '<script>alert("x")</script>';
const ESCAPED = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;';

/** A failing message as a record an older Baton counted keeps it, with `fields` over it. */
const failingWith = (fields: Partial<InspectedFailing>): InspectedFailing => ({
  messageId: 'm-1',
  inboxPosition: '42',
  attempts: 2,
  since: null,
  handler: null,
  error: null,
  ended: null,
  ...fields,
});

describe("the dev inspector's hold views", () => {
  it('lists the paused actors, escaped, and says how many more there are', () => {
    const html = pausedActorsHtml({
      pausedActors: [{ id: `note/${SCRIPT}`, at: 1_000, by: SCRIPT, parked: 2 }],
      pausedCount: 3,
      actorsListed: 'all',
    });
    expect(html).not.toContain('<script');
    expect(html).toContain(`data-actor="note/${ESCAPED}"`);
    expect(html).toContain(`<td><code>note/${ESCAPED}</code></td>`);
    expect(html).toContain(`<td><code>${ESCAPED}</code></td><td class="num">2</td>`);
    expect(html).toContain('and 2 more paused actor(s), not listed');

    const all = pausedActorsHtml({
      pausedActors: [{ id: 'note/a', at: 1_000, by: 'ops', parked: 0 }],
      pausedCount: 1,
      actorsListed: 'all',
    });
    expect(all).not.toContain('more');
  });

  it('says when no actor is paused, and of which actors on local-aws', () => {
    expect(pausedActorsHtml({ pausedActors: [], pausedCount: 0, actorsListed: 'all' })).toBe(
      '<p class="empty">no actor is paused</p>',
    );
    expect(
      pausedActorsHtml({ pausedActors: [], pausedCount: 0, actorsListed: 'since-start' }),
    ).toContain('(of those committed since the app process started)');
  });

  it("shows an actor's failing message: its id, inbox position and attempts, escaped", () => {
    const html = holdsHtml({
      paused: null,
      failing: failingWith({ messageId: SCRIPT }),
    });
    expect(html).not.toContain('<script');
    expect(html).toContain(
      `failing message <code>${ESCAPED}</code> at inbox position <code>42</code>, age unknown, failed 2 time(s) — its later messages wait`,
    );
    expect(html).toContain('"message will be retried"');
    expect(html).not.toContain('actor-paused');
  });

  it('shows the handler and the error of a failing message when its record keeps them', () => {
    const html = holdsHtml({
      failing: failingWith({
        since: 1_000,
        handler: `add${SCRIPT}`,
        error: { code: 'INTERNAL', message: `${SCRIPT}\n  at add` },
      }),
    });
    expect(html).not.toContain('<script');
    expect(html).toContain(`, failing since ${new Date(1_000).toLocaleString()}, failed 2 time(s)`);
    expect(html).toContain(
      `failed 2 time(s) in <code>add${ESCAPED}</code>: INTERNAL: ${ESCAPED} at add — its later messages wait until it is applied or dead-lettered</p>`,
    );
  });

  it('shows who ended a failing message, escaped, and that its next delivery keeps it as a dead letter', () => {
    const html = holdsHtml({
      failing: failingWith({ since: 1_000, handler: 'add', ended: { at: 2_000, by: SCRIPT } }),
    });
    expect(html).not.toContain('<script');
    expect(html).toContain(
      `failed 2 time(s) in <code>add</code> — ended by <code>${ESCAPED}</code>: its next delivery keeps it as a dead letter, its handler not run</p>`,
    );
  });

  it('shows who paused an actor, escaped, and nothing for an actor nothing holds', () => {
    const html = holdsHtml({ paused: { at: 1_000, by: SCRIPT }, failing: null });
    expect(html).toContain(`data-testid="actor-paused"`);
    expect(html).toContain(`by <code>${ESCAPED}</code>`);
    expect(html).not.toContain('<script');
    expect(holdsHtml({ paused: null, failing: null })).toBe('');
    expect(holdCell({})).toBe('');
    expect(
      holdCell({
        paused: { at: 1, by: 'ops' },
        failing: failingWith({ attempts: 3 }),
      }),
    ).toBe(
      '<span class="retry">paused</span><br><span class="rejected">failing, 3 attempt(s)</span>',
    );
  });
});
