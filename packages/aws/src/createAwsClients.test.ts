import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAwsClients } from './createAwsClients.ts';

// Loopback endpoints: placeholder credentials, and no request is made.
const local = { dynamodbEndpoint: 'http://127.0.0.1:1', sqsEndpoint: 'http://127.0.0.1:2' };

describe('createAwsClients', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("makes clients that resolve each command type's middleware once, and reuses them per configuration", async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', '');
    const clients = createAwsClients(local);
    expect(clients.dynamodb.config.cacheMiddleware).toBe(true);
    expect(clients.sqs.config.cacheMiddleware).toBe(true);
    expect(createAwsClients({ ...local })).toBe(clients);
    expect(createAwsClients({ ...local, region: 'eu-west-1' })).not.toBe(clients);
    // The emulators take any credentials: placeholders, so a developer's own never leave.
    expect(await clients.sqs.config.credentials()).toMatchObject({ accessKeyId: 'local' });
  });
});
