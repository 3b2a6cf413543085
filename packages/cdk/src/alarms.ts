import { SWEEPER_LAG_ALARM_MS } from '@baton/aws/lambda';
import { ErrorCode } from '@baton/core';
import {
  DEAD_LETTER_AT_ONCE_LOG,
  DEAD_LETTER_LOGS,
  GAPS_FORGOTTEN_LOGS,
  REJECTED_LOG,
  STALE_OUTBOX_LOG,
  SWEEP_LOG,
  UNSENT_LOG,
  WORKFLOW_COMPENSATIONS_FAILED_LOG,
  WORKFLOW_LEFT_PAUSED_LOG,
} from '@baton/core/engine';
import { Duration, Stack, Token } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { BatonFunctionName } from './appFunctions.ts';
import type { AppParts } from './appParts.ts';

/**
 * The app's alarms, by what they watch: a dead letter (in the inbox's dead-letter queue, and
 * one there nearing the queue's retention; the engine's, a new one and any kept), a workflow
 * instance left paused with no replay due (the worker logs one line each time) or ended with
 * compensations that failed (one line each), a message kept
 * because its state would be too large and a channel's gaps forgotten (from the worker's log),
 * the inbox's oldest message, stream records the stream function gave up on, timer messages the
 * relay gave up on, committed sends whose drain keeps failing, outbox items older than a day (the
 * sweeper logs one line each), a sweeper that runs late or not at all, and every function's
 * errors.
 */
export function createAlarms(
  app: AppParts,
  functions: Record<BatonFunctionName, NodejsFunction>,
  inboxAgeSeconds: number,
  timerDeadLetters: sqs.IQueue,
  /** How long the queues keep a message (`retentionPeriod`): SQS deletes it after that. */
  queueRetention: Duration,
): Record<string, cloudwatch.Alarm> {
  const alarm = (
    id: string,
    metric: cloudwatch.IMetric,
    threshold: number,
    description: string,
    evaluationPeriods = 1,
  ) =>
    new cloudwatch.Alarm(app, id, {
      metric,
      threshold,
      evaluationPeriods,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
  const alarms: Record<string, cloudwatch.Alarm> = {
    deadLetters: alarm(
      'DeadLettersAlarm',
      deadLetterQueueDepth(app),
      1,
      'A message left the inbox for its dead-letter queue (a worker died on it again and again, or an effect was retried while its target stayed down): see `baton queue-dead-letters list` and the worker logs, fix the cause, then `baton queue-dead-letters redrive`.',
    ),
    deadLettersExpiring: deadLettersExpiring(app, queueRetention),
    engineDeadLetters: alarm(
      'EngineDeadLettersAlarm',
      engineDeadLettersMetric(app, functions.worker),
      1,
      'The engine ended a message as DEAD_LETTERED in the last 5 minutes, after it failed every attempt or at once, without retries (a new one: KeptDeadLettersAlarm stays raised while any is kept). See `baton dead-letters list` (each letter’s code), fix the cause, then `baton dead-letters redrive --all --code <code> --dry-run`, then without --dry-run. It leaves an ask’s letter (its asker was told DEAD_LETTERED): purge it, or redrive it with --force.',
    ),
    keptDeadLetters: new cloudwatch.Alarm(app, 'KeptDeadLettersAlarm', {
      metric: keptDeadLettersMetric(app, functions.sweeper),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      // A standing count: a sweep that logged none (no sweep, a failed count) changes nothing.
      // SweeperLagAlarm pages for a sweeper that does not run.
      treatMissingData: cloudwatch.TreatMissingData.IGNORE,
      alarmDescription:
        'Dead letters are kept: messages the engine ended as DEAD_LETTERED, or messages parked ' +
        'at a paused actor. See `baton status`, `baton dead-letters list` and `baton actors get <type/key>`; ' +
        'fix the cause, then `baton dead-letters redrive --all --dry-run`, then without ' +
        '--dry-run (it leaves an ask’s letter, whose asker was told DEAD_LETTERED: purge it, or ' +
        'redrive it with --force), or `baton actors resume <type/key>`. A redriven letter stays listed until ' +
        'its actor applies it: do not purge it meanwhile. ' +
        'The sweeper counts them every minute, so the alarm stays raised until none is kept; ' +
        'EngineDeadLettersAlarm pages for each new one meanwhile.',
    }),
    pausedWorkflows: alarm(
      'PausedWorkflowsAlarm',
      logMetric(app, functions.worker, 'WorkflowsLeftPaused', WORKFLOW_LEFT_PAUSED_LOG, '1', 'Sum'),
      1,
      'A workflow instance was left paused in the last 5 minutes: its code cannot replay its ' +
        'history (NON_DETERMINISTIC) or its run threw an unexpected error (RETRYABLE, ' +
        'RUN_THREW), and no replay of it is due (its rechecks, 1 to 16 minutes after it paused, ' +
        'are used up, or it awaits something that is not a ctx command). It ' +
        'waits, its history kept, until code that replays it runs. See `baton status` (its ' +
        '`paused workflows` line names them), `baton workflows show <workflow> <id>` (the error ' +
        'names the command and the version, or what the run threw) and `baton workflows list <workflow> --status ' +
        'paused`; every workflow’s: `baton workflows list --status paused --app <entry>`. Deploy ' +
        'code that replays it (or fixes the bug), then `baton workflows resume <workflow> <id>` ' +
        '(docs/operations.md, PausedWorkflowsAlarm).',
    ),
    compensationFailures: alarm(
      'CompensationFailuresAlarm',
      logMetric(
        app,
        functions.worker,
        'CompensationFailures',
        WORKFLOW_COMPENSATIONS_FAILED_LOG,
        '1',
        'Sum',
      ),
      1,
      'A workflow instance ended in the last 5 minutes with compensations that failed for good ' +
        '(an actor refused a compensation’s call, a compensating step ran out of retries): what ' +
        'they were to undo stays done, and nothing tries them again. The worker’s line `workflow ' +
        'ended with failed compensations` names the instance (its `actor`) and each error; ' +
        '`baton workflows show <workflow> <id>` lists them under `compensations failed`. Fix the ' +
        'cause, then do each undo yourself: `baton send <type/key> <handler> <json payload> --app ' +
        '<entry>` with the message the compensation sent (docs/operations.md, ' +
        'CompensationFailuresAlarm).',
    ),
    stateTooLarge: alarm(
      'StateTooLargeAlarm',
      stateTooLargeMetric(app, functions.worker),
      1,
      'A message was kept as a dead letter in the last 5 minutes because its handler would grow its actor’s state past the record limit (STATE_TOO_LARGE): the state is unchanged and the actor went on with its next messages. `baton dead-letters list` shows the letter, with its cause; the worker’s `message dead-lettered at once` line names the actor and the message. Keep large data elsewhere or split the actor, deploy, then `baton dead-letters redrive --all --code STATE_TOO_LARGE --dry-run`, then without --dry-run (an ask’s letter only with --force: its asker was told DEAD_LETTERED) (docs/operations.md, StateTooLargeAlarm).',
    ),
    forgottenGaps: alarm(
      'ForgottenGapsAlarm',
      logMetric(app, functions.worker, 'ForgottenGaps', GAPS_FORGOTTEN_LOGS, '1', 'Sum'),
      1,
      'An actor’s mark of a sender held more gaps (messages missing from their channel) than one item holds, and the worker forgot the oldest: a message that still comes there (a missing one redriven from the inbox’s dead-letter queue, or a copy of one applied) cannot be told apart, and is kept as a dead letter, neither applied nor skipped. Its line in the worker’s log (`gaps on a channel forgotten`) names the actor, the sender and the sequence ranges forgotten; `baton queue-dead-letters list` shows those that wait in the queue’s dead-letter queue, `baton dead-letters list` those kept. Redrive a kept letter with --force only if you know it was never applied; then find why so many of one sender’s messages failed (DeadLettersAlarm) (docs/operations.md, ForgottenGapsAlarm).',
    ),
    inboxAge: alarm(
      'InboxAgeAlarm',
      app.metricInboxAge({ period: Duration.minutes(1), statistic: 'Maximum' }),
      inboxAgeSeconds,
      `The oldest inbox message waited ${inboxAgeSeconds} s or more: workers are behind or failing, and its actor's later messages wait behind it. See \`baton status\` (messages waiting and in flight), the worker's log (\`message will be retried\` and its error), and workerErrorsAlarm and the throttling alarms (docs/operations.md, InboxAgeAlarm).`,
    ),
    streamFailures: alarm(
      'StreamFailuresAlarm',
      app.streamFailureQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: 'Maximum',
      }),
      1,
      'The stream function gave up on table changes (after its retries or an hour): live queries may have missed pushes; no message or state is lost. `baton status` counts them (stream failures); read the stream function’s log for the error and fix it, then purge the queue to clear the alarm (its URL: `baton status --json`, under queues).',
    ),
    timerDeadLetters: alarm(
      'TimerDeadLettersAlarm',
      timerDeadLetters.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: 'Maximum',
      }),
      1,
      'The timer relay gave up on timer messages: the timers stay stored, and the sweeper fires each a minute past due. `baton status` counts them (timer dead letters) and the timers due; read the relay function’s log for the error and fix it, then purge the queue to clear the alarm (its URL: `baton status --json`, under queues).',
    ),
    staleOutbox: alarm(
      'StaleOutboxAlarm',
      staleOutboxMetric(app, functions.sweeper),
      1,
      'The sweeper found outbox entries older than a day: their drains keep failing, and the sends wait, kept. `baton status` names an actor whose sends wait and `baton actors get <type/key>` shows each held send’s target and age; the sweeper’s log names each actor, and its warning `sweep could not drain an outbox` the error. Fix what it names; the next sweep sends them.',
    ),
    drainFailures: alarm(
      'DrainFailuresAlarm',
      drainFailuresMetric(app, functions),
      1,
      'Committed sends could not go out to the inbox in each of the last two 5-minute periods: a worker’s drain after its turn (its line `' +
        UNSENT_LOG +
        '`; the turn’s messages are applied and acked) or a sweep’s (`sweep could not drain an outbox`, its `failed` count). The sends stay in their actors’ records, and each actor’s next message waits until they go out. The error in those lines names the cause: a refused SendMessage is the inbox’s policy or the function’s role, else a deleted queue. `baton status` counts the actors holding sends, `baton actors get <type/key>` shows them. Fix the cause; the next sweep sends them, in order, once (docs/operations.md, DrainFailuresAlarm).',
      2,
    ),
    sweeperLag: new cloudwatch.Alarm(app, 'SweeperLagAlarm', {
      metric: sweeperLagMetric(app, functions.sweeper),
      threshold: SWEEPER_LAG_ALARM_MS,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      // No sweep in the period is the worst lag of all: drained sends would never be retired.
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      alarmDescription:
        'The sweeper ran late (a send it drained had waited 4 minutes or more) or did not run ' +
        'for 5 minutes (see sweeperErrorsAlarm, its log and its schedule rule; `baton status` ' +
        'counts actors holding sends no sweep retired, and timers due; `baton backlog` the ' +
        'sends not yet applied): past SQS’s 5-minute dedupe window ' +
        'only receivers’ marks and effects’ ' +
        'done-marks catch the copies it sends, and without sweeps held sends are never retired. ' +
        'If its "sweep done" lines count outboxes "left" sweep after sweep, it falls behind the ' +
        'actors going idle: raise sweeperConcurrency (docs/scale.md, "The sweeper").',
    }),
  };
  for (const [name, fn] of Object.entries(functions)) {
    alarms[`${name}Errors`] = alarm(
      `${name}ErrorsAlarm`,
      fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      1,
      `The ${name} function failed: ${FAILED[name as BatonFunctionName]} Read its log (${name[0]!.toUpperCase()}${name.slice(1)}Logs); \`baton status\` shows what waits.`,
    );
  }
  return alarms;
}

/** What a function's failure puts at stake, for its errors alarm's description. */
const FAILED: Readonly<Record<BatonFunctionName, string>> = {
  worker:
    'the batch’s unfinished messages go back to the inbox and are retried, none applied twice; one that keeps crashing a worker ends in the inbox’s dead-letter queue.',
  ingress: 'callers got an error and retry; a keyed send retried is applied once.',
  websocket: 'clients got an error (subscribing fails) and retry.',
  stream: 'pushes to live queries are late or missed (StreamFailuresAlarm once it gives up).',
  relay: 'timers fire late (the sweeper fires each a minute past due).',
  sweeper: 'held sends and timers go out late; it runs again within a minute.',
  connectionSweeper: 'lapsed WebSocket connections stay recorded; it runs again within a minute.',
};

/**
 * The messages in the inbox's dead-letter queue, visible or not (Maximum per minute): `baton
 * queue-dead-letters list` hides those it looks at for a few seconds, which must not read as an
 * empty queue, clear the alarm, and page again a minute later.
 */
function deadLetterQueueDepth(app: AppParts): cloudwatch.IMetric {
  const options = { period: Duration.minutes(1), statistic: 'Maximum' };
  return new cloudwatch.MathExpression({
    expression: 'SUM([visible, hidden])',
    usingMetrics: {
      visible: app.metricDeadLetters(options),
      hidden: app.deadLetterQueue.metricApproximateNumberOfMessagesNotVisible(options),
    },
    label: "Messages in the inbox's dead-letter queue",
    period: Duration.minutes(1),
  });
}

/** How long before SQS deletes a message from the inbox's dead-letter queue its alarm pages. */
const EXPIRY_WARNING = Duration.days(4);

/**
 * The oldest message in the inbox's dead-letter queue nears the queue's retention: SQS deletes
 * it then, unseen, and DeadLettersAlarm, raised since it arrived, pages no more. A FIFO queue's
 * message is kept `retention` from its move there, the age SQS measures it by.
 */
function deadLettersExpiring(app: AppParts, retention: Duration): cloudwatch.Alarm {
  const days = (duration: Duration) => duration.toDays({ integral: false });
  const threshold = retention.minus(EXPIRY_WARNING);
  return new cloudwatch.Alarm(app, 'DeadLettersExpiringAlarm', {
    metric: app.deadLetterQueue.metricApproximateAgeOfOldestMessage({
      period: Duration.minutes(5),
      statistic: 'Maximum',
    }),
    threshold: threshold.toSeconds(),
    evaluationPeriods: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    alarmDescription:
      `A message has waited ${days(threshold)} days or more in the inbox's dead-letter queue: ` +
      `SQS deletes it ${days(retention)} days after it got there, in ${days(EXPIRY_WARNING)} ` +
      'days at most, lost for good, never applied. See `baton ' +
      'queue-dead-letters list` (each message’s actor and age) and the worker logs; fix the ' +
      'cause, then `baton queue-dead-letters redrive` before then. A fix that cannot land in ' +
      'time: redrive anyway; one a worker dies on again comes back with its clock restarted ' +
      '(docs/operations.md, DeadLettersExpiringAlarm).',
  });
}

/**
 * Counts the messages the engine dead-lettered in actors' turns (the worker logs each, with one
 * line for a message that failed every attempt and another for one ended at once).
 */
function engineDeadLettersMetric(app: AppParts, worker: NodejsFunction): cloudwatch.IMetric {
  return logMetric(app, worker, 'EngineDeadLetters', DEAD_LETTER_LOGS, '1', 'Sum');
}

/**
 * Counts the messages kept as dead letters for STATE_TOO_LARGE (the worker logs each with the
 * code of its cause), and those an earlier Baton rejected for it, so that none is missed while a
 * deploy rolls.
 */
function stateTooLargeMetric(app: AppParts, worker: NodejsFunction): cloudwatch.IMetric {
  return logMetric(
    app,
    worker,
    'StateTooLarge',
    [DEAD_LETTER_AT_ONCE_LOG, REJECTED_LOG],
    '1',
    'Sum',
    logs.FilterPattern.stringValue('$.code', '=', ErrorCode.STATE_TOO_LARGE),
  );
}

/**
 * The dead letters kept, parked messages included: the `deadLetters` the sweeper logs after each
 * sweep (Maximum per 5 minutes). A standing count, unlike the worker's line per dead letter, so
 * that its alarm clears only once every letter is redriven or purged.
 */
function keptDeadLettersMetric(app: AppParts, sweeper: NodejsFunction): cloudwatch.IMetric {
  return logMetric(app, sweeper, 'KeptDeadLetters', SWEEP_LOG, '$.deadLetters', 'Maximum');
}

/** Counts the sweeper's log entries about outbox items older than a day. */
function staleOutboxMetric(app: AppParts, sweeper: NodejsFunction): cloudwatch.IMetric {
  return logMetric(app, sweeper, 'StaleOutbox', STALE_OUTBOX_LOG, '1', 'Sum');
}

/**
 * Committed sends that could not go out, per 5 minutes: the workers' drains that failed after
 * their commit (a line each) and the most actors one sweep could not drain. The sweeper retries
 * every minute, so a cause that stays shows in period after period; a worker whose own role is
 * refused while the sweeper's is not shows too, its sends late by a sweep each.
 */
function drainFailuresMetric(
  app: AppParts,
  functions: Record<BatonFunctionName, NodejsFunction>,
): cloudwatch.IMetric {
  return new cloudwatch.MathExpression({
    expression: 'FILL(unsent, 0) + FILL(failed, 0)',
    usingMetrics: {
      unsent: logMetric(app, functions.worker, 'UnsentSends', UNSENT_LOG, '1', 'Sum'),
      failed: logMetric(
        app,
        functions.sweeper,
        'SweepDrainFailures',
        SWEEP_LOG,
        '$.failed',
        'Maximum',
      ),
    },
    label: 'Drains that failed after their commit',
    period: Duration.minutes(5),
  });
}

/** The `lagMs` of each sweep, from the line the sweeper logs after it (Maximum per 5 minutes). */
function sweeperLagMetric(app: AppParts, sweeper: NodejsFunction): cloudwatch.IMetric {
  return logMetric(app, sweeper, 'SweeperLag', SWEEP_LOG, '$.lagMs', 'Maximum');
}

/**
 * A metric of a function's JSON log lines whose `message` is `message`, per 5 minutes. A value
 * read from a field (`$.lagMs`) counts only the lines that carry it.
 */
export function logMetric(
  app: AppParts,
  fn: NodejsFunction,
  name: string,
  /** The line's `message`, or any of several. */
  message: string | readonly string[],
  metricValue: string,
  statistic: 'Sum' | 'Maximum',
  /** What the lines must hold besides, if anything. */
  where?: logs.JsonPattern,
): cloudwatch.IMetric {
  const messages =
    typeof message === 'string'
      ? logs.FilterPattern.stringValue('$.message', '=', message)
      : logs.FilterPattern.any(
          ...message.map((text) => logs.FilterPattern.stringValue('$.message', '=', text)),
        );
  const lines = where ? logs.FilterPattern.all(messages, where) : messages;
  const filter = new logs.MetricFilter(app, `${name}Filter`, {
    logGroup: fn.logGroup,
    metricNamespace: 'Baton',
    metricName: `${name}-${app.node.addr}`,
    filterPattern: metricValue.startsWith('$.')
      ? logs.FilterPattern.all(lines, logs.FilterPattern.exists(metricValue))
      : lines,
    metricValue,
  });
  return filter.metric({ period: Duration.minutes(5), statistic });
}

/**
 * Ends every alarm's description with the target options its `baton` commands need to act on
 * this app (`--stack`, and `--region` when the stack names one): paged, an operator pastes the
 * commands with them, not against whatever deployment the shell names by default.
 */
export function nameAlarmTarget(
  app: AppParts,
  alarms: Readonly<Record<string, cloudwatch.Alarm>>,
): void {
  const stack = Stack.of(app);
  const region = Token.isUnresolved(stack.region) ? '' : ` --region ${stack.region}`;
  const target = ` Run the baton commands with \`--stack ${stack.stackName}${region}\`.`;
  for (const alarm of Object.values(alarms)) {
    const cfn = alarm.node.defaultChild as cloudwatch.CfnAlarm;
    cfn.alarmDescription = `${cfn.alarmDescription ?? ''}${target}`;
  }
}
