/** The sweeper function's entry: the app (aliased at bundling) on the environment's resources. */
import { sweeperFromEnvironment } from '@baton/aws/lambda';
import app from 'baton-app';

export const handler: ReturnType<typeof sweeperFromEnvironment> = sweeperFromEnvironment(app);
