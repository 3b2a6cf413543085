/** The timer relay function's entry: from the timer queue into the inbox (it needs no app). */
import { relayFromEnvironment } from '@baton/aws/lambda';

export const handler: ReturnType<typeof relayFromEnvironment> = relayFromEnvironment();
