import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { BatonApp } from './BatonApp.ts';
import type { BatonAppProps } from './BatonAppProps.ts';

const entry = new URL('../../../examples/bank/src/app.ts', import.meta.url).pathname;

/** A stack holding one BatonApp; bundling is skipped. */
function synth(props: Partial<BatonAppProps> = {}) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Bank', { env: { account: '123456789012', region: 'eu-west-1' } });
  const baton = new BatonApp(stack, 'Baton', { entry, webSocketAuth: 'app', ...props });
  const template = Template.fromStack(stack);
  const id = (construct: { node: { defaultChild?: unknown } }) =>
    stack.getLogicalId(construct.node.defaultChild as never);
  /** The properties of the alarm `name` of `baton.alarms`, as synthesized. */
  const alarm = (name: string) => {
    const found = baton.alarms[name];
    expect(found, `alarm ${name}`).toBeDefined();
    return template.toJSON().Resources[id(found!)].Properties;
  };
  return { baton, template, id, alarm };
}

type Query = { Id: string; Expression?: string; MetricStat?: { Metric: Record<string, unknown> } };

const { baton, template, id, alarm } = synth();

describe('BatonApp scale alarms and quotas', () => {
  it('caps the worker’s event source mapping at maxConcurrency: 10 by default, as told', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: id(baton.functions.worker) },
      ScalingConfig: { MaximumConcurrency: 10 },
    });
    synth({ maxConcurrency: 200 }).template.hasResourceProperties(
      'AWS::Lambda::EventSourceMapping',
      { ScalingConfig: { MaximumConcurrency: 200 } },
    );
  });

  it('reserves concurrency for the stream function (20 by default), as for the WebSocket and ingress', () => {
    const reserved = (t: Template, fnId: string) =>
      t.toJSON().Resources[fnId].Properties.ReservedConcurrentExecutions;
    expect(reserved(template, id(baton.functions.stream))).toBe(20);
    const tuned = synth({ reservedConcurrency: { stream: 64 } });
    expect(reserved(tuned.template, tuned.id(tuned.baton.functions.stream))).toBe(64);
  });

  it('alarms when the inbox takes 240 messages/s (80% of a FIFO action’s 300 calls/s) for 3 minutes', () => {
    expect(alarm('inboxSendRate')).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'NumberOfMessagesSent',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [id(baton.inbox), 'QueueName'] } }],
      Statistic: 'Sum',
      Period: 60,
      Threshold: 240 * 60,
      EvaluationPeriods: 3,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('alarms on one throttled request to the actor table, summed over each operation Baton calls', () => {
    const props = alarm('tableThrottledRequests');
    expect(props.Threshold).toBe(1);
    const queries = props.Metrics as Query[];
    const sum = queries.find((q) => q.Expression);
    const series = queries.filter((q) => q.MetricStat);
    expect(sum!.Expression).toBe(`SUM([${series.map((q) => q.Id).join(', ')}])`);
    expect(
      series.map((q) => {
        const { MetricName, Dimensions } = q.MetricStat!.Metric as {
          MetricName: string;
          Dimensions: { Name: string; Value: unknown }[];
        };
        expect(MetricName).toBe('ThrottledRequests');
        expect(Dimensions).toContainEqual({ Name: 'TableName', Value: { Ref: id(baton.table) } });
        return Dimensions.find((d) => d.Name === 'Operation')!.Value;
      }),
    ).toEqual([
      'GetItem',
      'Query',
      'PutItem',
      'UpdateItem',
      'DeleteItem',
      'BatchWriteItem',
      'TransactWriteItems',
    ]);
    // Where to find the hot actor: the worker's line for its failed commit, which names it (the
    // table has no Contributor Insights to ask).
    expect(props.AlarmDescription).toContain(
      'the worker’s log names the actor whose commits fail (`turn failed; its messages will be redelivered`',
    );
    expect(props.AlarmDescription).not.toMatch(/Contributor Insights/);
  });

  it('alarms on one write throttle event on the actor table or its outbox index', () => {
    const props = alarm('tableWriteThrottleEvents');
    expect(props.Threshold).toBe(1);
    const series = (props.Metrics as Query[]).filter((q) => q.MetricStat);
    expect(series.map((q) => q.MetricStat!.Metric)).toEqual([
      expect.objectContaining({
        MetricName: 'WriteThrottleEvents',
        Dimensions: [{ Name: 'TableName', Value: { Ref: id(baton.table) } }],
      }),
      expect.objectContaining({
        MetricName: 'WriteThrottleEvents',
        Dimensions: expect.arrayContaining([{ Name: 'GlobalSecondaryIndexName', Value: 'outbox' }]),
      }),
    ]);
  });

  it('alarms on any throttled invocation of the worker, stream, WebSocket and ingress functions', () => {
    for (const name of ['worker', 'stream', 'websocket', 'ingress'] as const) {
      expect(alarm(`${name}Throttles`), name).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Throttles',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: id(baton.functions[name]) } }],
        Statistic: 'Sum',
        Threshold: 1,
      });
    }
  });

  it('alarms on one PostToConnection call throttled in 5 minutes, counted from the stream function’s log', () => {
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      LogGroupName: { Ref: id(baton.functions.stream.logGroup as never) },
      FilterPattern: Match.stringLikeRegexp('pushes throttled and retried'),
      MetricTransformations: [Match.objectLike({ MetricValue: '$.throttled' })],
    });
    expect(alarm('pushThrottles')).toMatchObject({
      Namespace: 'Baton',
      MetricName: expect.stringMatching(/^PushesThrottled-/),
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
    });
  });

  it('alarms when the stream function reads changes a minute late, and on the account’s concurrency at 800', () => {
    expect(alarm('streamIteratorAge')).toMatchObject({
      MetricName: 'IteratorAge',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: id(baton.functions.stream) } }],
      Statistic: 'Maximum',
      Threshold: 60_000,
    });
    const account = alarm('accountConcurrency');
    expect(account).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'ConcurrentExecutions',
      Statistic: 'Maximum',
      Threshold: 800,
      EvaluationPeriods: 3,
    });
    expect(account.Dimensions).toBeUndefined();
    expect(alarm('inboxAge').Threshold).toBe(300);
  });

  it('sets the inbox to high-throughput mode with highThroughputInbox, and raises the send-rate alarm to 80% of the least regional quota', () => {
    const inboxOf = (t: Template, inboxId: string) => t.toJSON().Resources[inboxId].Properties;
    expect(inboxOf(template, id(baton.inbox))).not.toHaveProperty('DeduplicationScope');
    expect(inboxOf(template, id(baton.inbox))).not.toHaveProperty('FifoThroughputLimit');
    const high = synth({ highThroughputInbox: true });
    expect(inboxOf(high.template, high.id(high.baton.inbox))).toMatchObject({
      FifoQueue: true,
      ContentBasedDeduplication: false,
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
    });
    expect(high.alarm('inboxSendRate').Threshold).toBe(1_920 * 60);
    expect(high.alarm('inboxSendRate').AlarmDescription).toMatch(/high-throughput mode/);
    expect(alarm('inboxSendRate').AlarmDescription).toMatch(/set highThroughputInbox/);
    const told = synth({
      highThroughputInbox: true,
      alarmThresholds: { inboxMessagesPerSecond: 56_000 },
    });
    expect(told.alarm('inboxSendRate').Threshold).toBe(56_000 * 60);
    expect(() => synth({ highThroughputInbox: 'yes' as never })).toThrow(
      /highThroughputInbox must be true or false, got "yes"/,
    );
  });

  it('takes every threshold from alarmThresholds; accountConcurrentExecutions: false drops that alarm', () => {
    const tuned = synth({
      alarmThresholds: {
        inboxAgeSeconds: 120,
        inboxMessagesPerSecond: 2_400,
        tableThrottledRequests: 5,
        tableWriteThrottleEvents: 6,
        functionThrottles: 7,
        pushThrottles: 8,
        streamIteratorAgeMs: 10_000,
        accountConcurrentExecutions: 4_000,
      },
    });
    expect(
      Object.fromEntries(
        [
          'inboxAge',
          'inboxSendRate',
          'tableThrottledRequests',
          'tableWriteThrottleEvents',
          'workerThrottles',
          'websocketThrottles',
          'pushThrottles',
          'streamIteratorAge',
          'accountConcurrency',
        ].map((name) => [name, tuned.alarm(name).Threshold]),
      ),
    ).toEqual({
      inboxAge: 120,
      inboxSendRate: 2_400 * 60,
      tableThrottledRequests: 5,
      tableWriteThrottleEvents: 6,
      workerThrottles: 7,
      websocketThrottles: 7,
      pushThrottles: 8,
      streamIteratorAge: 10_000,
      accountConcurrency: 4_000,
    });
    const without = synth({ alarmThresholds: { accountConcurrentExecutions: false } });
    expect(without.baton.alarms.accountConcurrency).toBeUndefined();
    expect(
      Object.values(without.template.findResources('AWS::CloudWatch::Alarm')).filter(
        (a) => a.Properties.MetricName === 'ConcurrentExecutions',
      ),
    ).toEqual([]);
  });

  it('refuses thresholds out of range, naming each', () => {
    expect(() =>
      synth({
        alarmThresholds: {
          inboxAgeSeconds: 10,
          inboxMessagesPerSecond: 0,
          streamIteratorAgeMs: 3_600_000,
          accountConcurrentExecutions: 1.5,
        },
        reservedConcurrency: { stream: 0 },
      }),
    ).toThrow(
      /reservedConcurrency\.stream must be an integer from 1 to 1000, got 0\n- alarmThresholds\.inboxAgeSeconds must be an integer from 60 .*got 10\n- alarmThresholds\.inboxMessagesPerSecond .*got 0\n- alarmThresholds\.streamIteratorAgeMs .*to 3599000, got 3600000\n- alarmThresholds\.accountConcurrentExecutions .*got 1\.5/,
    );
  });

  it('graphs the scale limits on the dashboard, each alarm’s threshold drawn', () => {
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard!.Properties.DashboardBody);
    for (const shown of [
      'Table throttling',
      'WriteKeyRangeThroughputThrottleEvents',
      'Function throttles',
      'Inbox messages sent (per minute)',
      'Stream iterator age (ms)',
      'Throttled pushes (PostToConnection, per 5 minutes)',
      'Concurrent executions (account, worker)',
      // The alarms' thresholds, drawn as horizontal lines.
      '\\"value\\":14400',
      '\\"value\\":60000',
      '\\"value\\":800',
    ]) {
      expect(body).toContain(shown);
    }
    // Every alarm, the scale ones included, in the alarm status widget.
    for (const name of Object.keys(baton.alarms)) {
      expect(body, name).toContain(id(baton.alarms[name]!));
    }
    template.hasResourceProperties('AWS::CloudWatch::Alarm', Match.objectLike({ Threshold: 800 }));
  });
});
