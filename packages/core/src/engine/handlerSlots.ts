/**
 * The engine's slots (contextSlots.ts) as a handler context fills them in: getters under symbols,
 * not enumerable, and made only when a workflow reads them (see `createHandlerContext`).
 */
import type {
  COMMIT_FIRST,
  CONFIRM_RECORD,
  INNER_SPAN,
  InnerSpanSource,
  STATE_PAGES,
  StatePages,
  TURN_DEADLINE,
  TURN_TRACE,
  TurnDeadline,
  WARM_CACHE,
} from '../contextSlots.ts';
import type { TurnEngine } from './createEngine.ts';

/** The slots of one handling's context, as workflows read them. */
export interface HandlerSlots {
  /** The `traceparent` the handling's sends carry. */
  readonly [TURN_TRACE]: string | undefined;
  /**
   * What spans for a workflow's steps and commands under this handling's start from (see
   * startInnerSpan); without OpenTelemetry there is none, and workflows skip looking for what
   * to record.
   */
  readonly [INNER_SPAN]: InnerSpanSource | undefined;
  readonly [WARM_CACHE]: TurnEngine['warm'];
  readonly [CONFIRM_RECORD]: () => Promise<void>;
  readonly [COMMIT_FIRST]: (() => void) | undefined;
  readonly [STATE_PAGES]: StatePages;
  readonly [TURN_DEADLINE]: TurnDeadline | undefined;
}
