import { describe, expect, it } from 'vitest';
import { localTarget } from './localTarget.ts';
import type { ChildConfig } from './protocol.ts';

describe('localTarget', () => {
  it("sends an embedded backend's operator to what can act on it: local-aws, or the inspector's form as trusted code", () => {
    const answer = localTarget({} as ChildConfig, 'http://127.0.0.1:3001/');
    expect(answer.status).toBe(409);
    const { message } = (answer.body as { error: { message: string } }).error;
    expect(message).toContain('--backend local-aws');
    expect(message).toContain(
      'its inspector at http://127.0.0.1:3001/, whose form sends as trusted code too',
    );
  });
});
