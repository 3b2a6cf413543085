import { BatonError, ErrorCode } from '../errors.ts';
import { checkOutput } from './checkOutput.ts';
import { ContinueAsNew } from './continueAsNew.ts';
import { inputAsRead } from './inputAsRead.ts';
import { rulesAtLeast, type WorkflowState } from './journal.ts';
import type { ReplayHost } from './replayTypes.ts';
import type { AnyWorkflowDefinition } from './workflow.ts';

/**
 * How a run ended: it returned `value` (its output, checked), or continued as new (`next`, the
 * next run's input), or it failed with `error`.
 */
export type RunEnd =
  | { ok: true; value: unknown; next?: { readonly input: unknown } }
  | { ok: false; error: unknown };

/** The replayer, as a run it starts reads it: its record and host may change between turns. */
export interface RunStarter {
  readonly definition: AnyWorkflowDefinition;
  readonly state: WorkflowState;
  readonly host: ReplayHost | undefined;
}

/**
 * Starts the run of `replayer`'s workflow on `ctx`, and tells `ended` how it ended. An output its
 * schema refuses, not JSON or too large to journal is the run failing: its saga unwinds. A history
 * that completed (a check replay) replays as it ended.
 */
export function startRun(
  replayer: RunStarter,
  ctx: Parameters<AnyWorkflowDefinition['run']>[0] & { readonly continuing: boolean },
  ended: (run: RunEnd) => void,
): void {
  Promise.resolve()
    .then(() => replayer.definition.run(ctx, runInput(replayer)))
    .then(
      (value) => {
        // The run caught what ctx.continueAsNew threw (a try around it): a misuse, which pauses
        // it, rather than an end the code did not mean (runs started earlier: see `rules`).
        if (ctx.continuing && rulesAtLeast(replayer.state, 2)) {
          ended({ ok: false, error: continueCaught(replayer.definition.name) });
          return;
        }
        const output =
          replayer.state.status === 'completed'
            ? { ok: true as const, output: value }
            : checkOutput(replayer.definition, value, replayer.host?.self.key);
        ended(output.ok ? { ok: true, value: output.output } : { ok: false, error: output.error });
      },
      (error) => {
        if (error instanceof ContinueAsNew) {
          ended({ ok: true, value: undefined, next: { input: error.input } });
        } else ended({ ok: false, error });
      },
    );
}

/**
 * The input the run gets: its record's, as this code reads it (see inputAsRead.ts). A turn keeps
 * what the reading added, so a default drawn at random is drawn once, not at every replay.
 */
function runInput({ definition, state, host }: RunStarter): unknown {
  const input = inputAsRead(definition, state.input);
  if (host && input !== state.input) state.input = input;
  return input;
}

/** INVALID_ARGUMENT: the run returned after `ctx.continueAsNew`, whose marker it caught. */
function continueCaught(workflow: string): BatonError {
  return new BatonError(
    ErrorCode.INVALID_ARGUMENT,
    `workflow "${workflow}" returned after ctx.continueAsNew, which ends the run by throwing: a try around it caught that and the run went on. Let it through (rethrow what you did not throw yourself), deploy, and resume the instance`,
  );
}
