import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { queueIdentity } from './queueIdentity.ts';

const url = 'https://sqs.eu-west-1.amazonaws.com/123456789012/bank-inbox.fifo';

describe('queueIdentity', () => {
  it('is the digest of the URL and creation time, as before the mode counted', () => {
    const id = queueIdentity(url, { CreatedTimestamp: '1795882031' });
    const before = createHash('sha256').update(`${url}@1795882031`).digest('base64url');
    expect(id).toBe(before.slice(0, 16));
    expect(
      queueIdentity(url, { CreatedTimestamp: '1795882031', FifoThroughputLimit: 'perQueue' }),
    ).toBe(id);
  });

  it('changes with the creation time and with a switch to high-throughput mode', () => {
    const id = queueIdentity(url, { CreatedTimestamp: '1795882031' });
    expect(queueIdentity(url, { CreatedTimestamp: '1795882092' })).not.toBe(id);
    const high = queueIdentity(url, {
      CreatedTimestamp: '1795882031',
      FifoThroughputLimit: 'perMessageGroupId',
    });
    expect(high).not.toBe(id);
    expect(high).toMatch(/^[\w-]{16}$/);
  });
});
