/**
 * The app's stack, synthesized with plain node: `BatonApp` bundles every function from the
 * installed packages. Prints the bundles' paths (relative to cdk.out) as JSON.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BatonApp } from '@baton/cdk';
import { App, Stack } from 'aws-cdk-lib';

const outdir = fileURLToPath(new URL('../cdk.out', import.meta.url));
const app = new App({ outdir });
const stack = new Stack(app, 'UserApp');
new BatonApp(stack, 'Bank', {
  entry: fileURLToPath(new URL('../src/app.ts', import.meta.url)),
  // A test app without auth, synthesized and never deployed.
  webSocketAuth: 'none',
  allowAnonymous: true,
});
app.synth();
const bundles = readdirSync(outdir).filter((dir) => existsSync(join(outdir, dir, 'index.mjs')));
console.log(JSON.stringify(bundles));
