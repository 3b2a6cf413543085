/** The ingress function's entry: the app (aliased at bundling) on the environment's resources. */
import { ingressFromEnvironment } from '@baton/aws/lambda';
import app from 'baton-app';

export const handler: ReturnType<typeof ingressFromEnvironment> = ingressFromEnvironment(app);
