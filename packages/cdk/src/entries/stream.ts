/** The stream function's entry: the app (aliased at bundling) on the environment's resources. */
import { streamFromEnvironment } from '@baton/aws/websocket';
import app from 'baton-app';

export const handler: ReturnType<typeof streamFromEnvironment> = streamFromEnvironment(app);
