import { describe, expect, it } from 'vitest';
import { latestAges, queueName } from './queues.ts';

describe("status's oldest message ages from CloudWatch", () => {
  it('takes each queue’s latest datapoint, in ms, whatever order CloudWatch lists them in', () => {
    const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, s));
    const ages = latestAges(
      ['bank-inbox.fifo', 'bank-dlq.fifo', 'bank-timers'],
      [
        { Id: 'q1', Timestamps: [t(0), t(59)], Values: [10, 70] },
        { Id: 'q0', Timestamps: [t(59), t(0)], Values: [42, 40] },
        { Id: 'q2', Timestamps: [], Values: [] },
      ],
    );
    expect(Object.fromEntries(ages)).toEqual({
      'bank-inbox.fifo': 42_000,
      'bank-dlq.fifo': 70_000,
      'bank-timers': null,
    });
  });

  it('names a queue by the last part of its URL', () => {
    expect(queueName('https://sqs.eu-west-1.amazonaws.com/123456789012/bank-Inbox.fifo')).toBe(
      'bank-Inbox.fifo',
    );
  });
});
