/** The websocket function's entry: the app (aliased at bundling) on the environment's resources. */
import { websocketFromEnvironment } from '@baton/aws/websocket';
import app from 'baton-app';

export const handler: ReturnType<typeof websocketFromEnvironment> = websocketFromEnvironment(app);
