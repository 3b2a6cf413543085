/**
 * What a run does next, chosen by its dice: a fault when one's rate and budget say so (see
 * `chooseFault`), else normal progress — resume a parked call, make an ingress send, roll the
 * deploy on, act as the operator, start a poll — and, with nothing to do now, a wait, a sweep,
 * or the resume of an actor left paused.
 */
import { isRetentionTimer } from '@baton/core/adapter';
import type { EmbeddedBackend } from '@baton/embedded';
import type { Action } from './Action.ts';
import {
  agingJumpAction,
  chooseFault,
  lateRedriveAction,
  strandedRedriveAction,
  sweepAction,
} from './faultActions.ts';
import type { IngressLog } from './IngressLog.ts';
import {
  endFailingAction,
  queueRedriveAction,
  redriveAction,
  resumeAction,
} from './operatorActions.ts';
import type { SimCluster } from './SimCluster.ts';

/** The chance, at each step of progress, that a copy kept aside is redriven late. */
const LATE_REDRIVE_CHANCE = 0.05;

/** The chance, at each step of progress, that a paused actor is resumed. */
const RESUME_CHANCE = 0.01;

/**
 * The longest a run waits, once all else is done, with an actor paused: a timer due sooner
 * fires into its inbox while it is paused; the actor is resumed before a longer wait.
 */
const PAUSED_WAIT_MS = 5 * 60_000;

/**
 * The run's next step: a fault, or a piece of normal progress; `undefined` when there is none
 * now (the run is quiet, or a task between gates has yet to park). `until`: the virtual time a
 * bounded run goes no further than (`run({ forMs })`), `undefined` when unbounded.
 */
export function chooseAction(
  cluster: SimCluster,
  ingress: IngressLog,
  until: number | undefined,
): Action | undefined {
  const { clock, paused, parkedIngress } = cluster.context;
  const submitted = ingress.retryable(clock.now(), paused, parkedIngress);
  const state = { pending: ingress.pending, submitted };
  const room = until === undefined ? undefined : until - clock.now();
  return chooseFault(cluster, state, room) ?? progress(cluster, ingress, until);
}

/** Normal progress: resume a parked call, submit ingress, start a poll; else wait or sweep. */
function progress(
  cluster: SimCluster,
  ingress: IngressLog,
  until: number | undefined,
): Action | undefined {
  const { gates, rng, settings, stats, deadLetters, lateCopies, stranded } = cluster.context;
  const actions: Action[] = gates.parked.map((call, index) => ({
    label: `p${call.processId} ${call.label}`,
    run: () => gates.take(index).resume(),
  }));
  const next = ingress.nextSend(cluster);
  if (next) actions.push(next);
  // A rolling deploy goes on, now and then: the next process on old code is replaced by one
  // on the new.
  if (cluster.rolling && rng() < settings.faults.roll) {
    actions.push({
      label: 'roll the deploy on: one more process runs the new code',
      run: () => {
        stats.rolls++;
        cluster.rollOne();
      },
    });
  }
  // Dead letters are redriven as an operator would once the cause is fixed (up to
  // `deadLetterRedrives` times each).
  const letter = deadLetters.next();
  if (letter) actions.push(redriveAction(cluster, letter));
  // Now and then the operator ends a message failing at an actor's head rather than wait.
  const failing = deadLetters.nextFailing();
  if (failing && rng() < settings.faults.endFailing) {
    actions.push(endFailingAction(cluster, failing));
  }
  if (cluster.backend.queue.deadLetters().length > 0) actions.push(queueRedriveAction(cluster));
  // Copies kept aside past a retention jump come back at any step, one at a time (the rest at
  // the end), so that some come between a new life's messages.
  const late = lateCopies.waiting > 0;
  if (late && rng() < LATE_REDRIVE_CHANCE) actions.push(lateRedriveAction(cluster));
  // Stranded messages come back at any step once they waited across a time jump; the rest
  // wait for one until all else is done.
  if (stranded.aged > 0 && rng() < LATE_REDRIVE_CHANCE) {
    actions.push(strandedRedriveAction(cluster, true));
  }
  const counts = cluster.backend.queue.counts();
  for (const process of cluster.processes) {
    if (counts.receivable > 0 && process.active === 0) {
      actions.push({
        label: `p${process.id} poll`,
        run: () => cluster.task(process, () => process.worker.poll()),
      });
    }
  }
  // A paused actor is resumed now and then while work goes on.
  const paused = [...cluster.context.paused.keys()];
  if (paused.length > 0 && rng() < RESUME_CHANCE) {
    actions.push(resumeAction(cluster, paused[Math.floor(rng() * paused.length)]!));
  }
  if (actions.length > 0) return actions[Math.floor(rng() * actions.length)];
  if (cluster.all().some((p) => p.active > 0)) return undefined;
  if (late) return lateRedriveAction(cluster);
  if (paused.length === 0) return quiet(cluster, counts, until)?.action;
  // Once all else is done, a paused actor is resumed, so that every run ends with its parked
  // messages applied: at once, or after a short wait (a timer due soon fires while it is
  // paused; a long one, such as a workflow's sleep, would time its asks out).
  const waiting = quiet(cluster, counts, until);
  const soon = waiting !== undefined && waiting.at - cluster.context.clock.now() <= PAUSED_WAIT_MS;
  if (soon && rng() < 0.5) return waiting.action;
  return resumeAction(cluster, paused[0]!);
}

/**
 * With nothing to do now: the wait for the next message to be visible, the sweep of an
 * outbox, stranded messages' redrive, or the wait for the next timer — and the virtual time
 * it takes the run to (now, for all but the waits); `undefined` once the run is quiet.
 */
function quiet(
  cluster: SimCluster,
  counts: ReturnType<EmbeddedBackend['queue']['counts']>,
  until: number | undefined,
): { readonly action: Action; readonly at: number } | undefined {
  const { clock, settings, stats, stranded } = cluster.context;
  const { backend } = cluster;
  const now = clock.now();
  /** Whether waiting until `time` would take a bounded run past its bound. */
  const pastBound = (time: number) => until !== undefined && time > until;
  const visibleAt = backend.queue.nextVisibleAt();
  // A bounded run does not wait past its bound, but still sweeps and fires what is due.
  if (counts.total > 0 && visibleAt !== undefined && !pastBound(visibleAt)) {
    const wait = { label: `wait until ${visibleAt}`, run: () => clock.advanceTo(visibleAt) };
    return { action: wait, at: visibleAt };
  }
  if (backend.store.outboxSize() > 0) return { action: sweepAction(cluster), at: now };
  if (stranded.waiting > 0) {
    // All else is done: they wait across a time jump first, within the budget.
    const { agingJumpBudget } = settings.faults;
    const jump = stats.agingJumps < agingJumpBudget && cluster.idle() && until === undefined;
    const action = jump ? agingJumpAction(cluster) : strandedRedriveAction(cluster, false);
    return { action, at: jump ? Number.POSITIVE_INFINITY : now };
  }
  // Durable timers still stored: wait until the soonest is due, and let a sweep fire it. A
  // finished workflow's expiry is housekeeping, not work: fired once due, but no time passes
  // for it alone, so a run ends with its finished instances still readable (`idle` expires them).
  const timerAt = backend.store.nextTimerAt((timer) => timer.at > now && isRetentionTimer(timer));
  if (timerAt !== undefined && !pastBound(timerAt)) {
    const sweep = sweepAction(cluster);
    const action = {
      label: `wait until a timer is due at ${timerAt}, then ${sweep.label}`,
      run: () => {
        clock.advanceTo(timerAt);
        return sweep.run();
      },
    };
    return { action, at: timerAt };
  }
  return undefined;
}
