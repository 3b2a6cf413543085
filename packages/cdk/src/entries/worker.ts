/** The worker function's entry: the app (aliased at bundling) on the environment's resources. */
import { workerFromEnvironment } from '@baton/aws/lambda';
import app from 'baton-app';

export const handler: ReturnType<typeof workerFromEnvironment> = workerFromEnvironment(app);
