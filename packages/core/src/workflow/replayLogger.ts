import { type Logger, silentLogger } from '../logger.ts';
import type { WorkflowState } from './journal.ts';
import type { Replayer } from './Replayer.ts';

/**
 * A run's `ctx.log`. A line the run logs while it replays its history (a cold worker runs it
 * again from the start) was logged when the run first came there, so it is left out: the run
 * logs once per line, as it goes past where it had logged (see `Replayer.logsLine`). The turn's
 * logger is looked up at each line, so a logger a run keeps (`const { log } = ctx`) logs with
 * the turn it is in.
 */
export function replayLogger(replayer: Replayer): Logger {
  const at =
    (level: keyof Logger) =>
    (message: string, ...fields: Array<Record<string, unknown>>): void => {
      if (replayer.logsLine()) (replayer.host?.log ?? silentLogger)[level](message, ...fields);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/**
 * Where a run is in the lines it logs, to tell a new line from one a turn that committed wrote
 * already (`state.logged`): the completions it resolved (`position`), and the lines it logged
 * after the last of them. A run replays them in the same order, and a deploy that logs one line
 * more early on moves nothing after it. A turn that crashed after it logged writes its lines
 * again when it is redone.
 */
export class LogPlace {
  #at = -1;
  #lines = 0;

  /**
   * Whether a line logged at `position` is new; if so, `state.logged` moves to it. `replaying`:
   * journaled completions are still to resolve (a record an earlier Baton wrote, with no mark,
   * logged every line up to its history's end).
   */
  logs(state: WorkflowState, position: number, replaying: boolean): boolean {
    const mark = state.logged;
    if (mark === undefined ? replaying : position < mark.at) return false;
    this.#lines = position === this.#at ? this.#lines + 1 : 1;
    this.#at = position;
    if (position === mark?.at && this.#lines <= mark.lines) return false;
    state.logged = { at: position, lines: this.#lines };
    return true;
  }
}
