/**
 * Spans of a workflow's commands other than steps — calls, sends, sleeps, waits for events,
 * callbacks and children — so a trace shows the whole run. A command may end turns after it was
 * issued (a reply, a timer's fire, a signal), so its span is recorded when it ends, from the
 * time it was issued to the time it ended. Every span of an instance (steps included) is in the
 * trace of the turn that started it: the child of the turn that ended it when that turn is in
 * the workflow's trace, else (a signal from a client that began a trace of its own) of the
 * starting turn's span.
 */
import type { ActorContext } from '../ActorContext.ts';
import { INNER_SPAN, type InnerSpanSource, TURN_TRACE } from '../contextSlots.ts';
import { type InnerSpan, type InnerSpanOptions, startInnerSpan } from '../openTelemetry.ts';
import {
  type CommandKind,
  type JournalEntry,
  recordEntries,
  type WorkflowState,
} from './journal.ts';

type Ctx = ActorContext<WorkflowState>;
type SpanFn = (
  name: string,
  attributes: Record<string, string | number>,
  options?: InnerSpanOptions,
) => InnerSpan;

/** The commands that get a span here (steps and compensations get theirs as they run). */
const TRACED: ReadonlySet<CommandKind> = new Set([
  'call',
  'send',
  'sleep',
  'event',
  'callback',
  'child',
]);

const traceIdOf = (traceparent: string | undefined) => traceparent?.split('-')[1];

/** The `traceparent` of this turn's span, if it is traced. */
export function turnTrace(ctx: Ctx): string | undefined {
  return (ctx as unknown as Record<symbol, string | undefined>)[TURN_TRACE];
}

/**
 * The parent of the instance's spans in this turn: `undefined` for the turn's own span (in
 * the workflow's trace, or an instance started before it kept a trace), else the starting
 * turn's span.
 */
export function spanParent(ctx: Ctx): string | undefined {
  const started = ctx.state.trace;
  if (!started || traceIdOf(turnTrace(ctx)) === traceIdOf(started)) return undefined;
  return started;
}

/** Starts spans inside this turn's handling, if it is traced with OpenTelemetry. */
function innerSpans(ctx: Ctx): SpanFn | undefined {
  const source = (ctx as unknown as Record<symbol, InnerSpanSource | undefined>)[INNER_SPAN];
  if (!source) return undefined;
  return (name, attributes, options) =>
    startInnerSpan(source.openTelemetry, source.trace, name, attributes, options);
}

/** Starts a span of the instance's work in this turn, in the workflow's trace (see above). */
export function workflowSpan(ctx: Ctx): SpanFn | undefined {
  const span = innerSpans(ctx);
  if (!span) return undefined;
  return (name, attributes) => {
    const parent = spanParent(ctx);
    return span(name, attributes, parent ? { parent } : {});
  };
}

/**
 * Wraps each handler of a workflow's actor: after it, every traced command that ended in this
 * turn (pending before it, or issued in it) gets its span.
 */
export function traceCommands(
  workflow: string,
  handlers: Record<string, unknown>,
): Record<string, unknown> {
  const wrapped: Record<string, unknown> = {};
  for (const [message, handler] of Object.entries(handlers)) {
    const { handle } = handler as { handle: (ctx: Ctx, payload: unknown) => unknown };
    wrapped[message] = {
      ...(handler as object),
      handle: async (ctx: Ctx, payload: unknown) => {
        const span = innerSpans(ctx);
        if (!span) return handle(ctx, payload);
        // Entries objects are changed in place as they end; a history's oldest final entries
        // may move out of the record into pages in this turn, so these are kept by reference.
        const journalBefore = ctx.state.journal;
        const last = journalBefore.at(-1)?.seq ?? -1;
        const pending = recordEntries(ctx.state).filter((entry) => entry.state === 'pending');
        const result = await handle(ctx, payload);
        const ended = [...pending, ...ctx.state.journal.filter((entry) => entry.seq > last)].filter(
          (entry) => entry.state !== 'pending' && TRACED.has(entry.kind),
        );
        const parent = spanParent(ctx);
        for (const entry of ended) record(span, workflow, ctx, entry, parent);
        return result;
      },
    };
  }
  return wrapped;
}

function record(
  span: SpanFn,
  workflow: string,
  ctx: Ctx,
  entry: JournalEntry,
  parent: string | undefined,
): void {
  const name =
    entry.kind === 'sleep' ? `${workflow} sleep` : `${workflow} ${entry.kind} ${entry.name}`;
  const started = span(
    name,
    {
      'baton.workflow': workflow,
      'baton.workflow_id': ctx.self.key,
      'baton.command': entry.kind,
      'baton.step': entry.name,
      'baton.step_seq': entry.seq,
      'baton.command_state': entry.state,
    },
    { ...(parent ? { parent } : {}), startTime: new Date(entry.at) },
  );
  const end = new Date(entry.endedAt ?? ctx.now());
  started.end(entry.state === 'failed' ? entry.error : undefined, end);
}
