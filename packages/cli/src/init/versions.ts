/**
 * The versions of what a new app uses besides Baton: those this repository builds and tests
 * with (a test keeps them equal to the workspace's).
 */
export const APP_DEPENDENCIES = {
  react: '^19.3.1',
  'react-dom': '^19.3.1',
  zod: '^4.6.7',
} as const;

export const APP_DEV_DEPENDENCIES = {
  // The oldest Node the app's `engines` allow (20), so its types offer no API Node 20 lacks;
  // Node 22 or later is the one to run it on (the README says why).
  '@types/node': '^20.19.0',
  '@types/react': '^19.3.0',
  '@types/react-dom': '^19.3.0',
  '@types/ws': '^8.18.2',
  'aws-cdk': '2.1148.1',
  'aws-cdk-lib': '2.276.0',
  'cdk-nag': '3.0.2',
  constructs: '10.8.1',
  esbuild: '^0.28.2',
  tsx: '^4.23.15',
  typescript: '~5.9.3',
  vitest: '^3.2.7',
  // A script's BatonClient on Node 20, which has no WebSocket of its own.
  ws: '^8.23.0',
} as const;

/** Baton's packages a new app depends on, and those it needs only to develop and deploy. */
export const BATON_DEPENDENCIES = ['core', 'client', 'react'] as const;
export const BATON_DEV_DEPENDENCIES = ['cli', 'testing', 'cdk', 'embedded', 'server'] as const;
