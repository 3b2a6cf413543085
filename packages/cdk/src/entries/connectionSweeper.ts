/** The connectionSweeper function's entry: the app (aliased at bundling) on the environment's resources. */
import { connectionSweeperFromEnvironment } from '@baton/aws/websocket';
import app from 'baton-app';

export const handler: ReturnType<typeof connectionSweeperFromEnvironment> =
  connectionSweeperFromEnvironment(app);
