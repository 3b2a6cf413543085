#!/usr/bin/env node
// The `baton` command inside this repository, on its TypeScript sources (through tsx), so that
// `pnpm exec baton` and the examples' scripts run on Node 20 too. A published @baton/cli's
// `bin` is `dist/bin.js` instead (see `publishConfig`).
import { register } from 'tsx/esm/api';

register();
await import('../src/bin.ts');
