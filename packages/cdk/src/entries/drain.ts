/** The drain function's entry: the app (aliased at bundling) on the environment's resources. */
import { drainFromEnvironment } from '@baton/aws/lambda';
import app from 'baton-app';

export const handler: ReturnType<typeof drainFromEnvironment> = drainFromEnvironment(app);
