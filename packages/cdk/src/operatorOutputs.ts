import { CfnOutput } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

/**
 * What `baton --stack <name>` reads: one stack output per resource the CLI operates, each
 * described as `baton:<what> <construct path>` (the path tells two apps in one stack apart).
 */
export function operatorOutputs(app: Construct, values: Readonly<Record<string, string>>): void {
  for (const [what, value] of Object.entries(values)) {
    const id = `Operator${what[0]!.toUpperCase()}${what.slice(1)}`;
    new CfnOutput(app, id, { value, description: `baton:${what} ${app.node.path}` });
  }
}
