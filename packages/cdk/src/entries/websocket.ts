/** The websocket function's entry: the app (aliased at bundling) on the environment's resources. */
import { websocketFromEnvironment } from '@baton/aws/websocket';
import app from 'baton-app';
import { requireConnectAuth } from '../requireConnectAuth.ts';

// webSocketAuth: 'app' with an app that has no auth would accept anyone: refuse to start.
requireConnectAuth(app, process.env);

export const handler: ReturnType<typeof websocketFromEnvironment> = websocketFromEnvironment(app);
