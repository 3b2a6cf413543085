/** The app module a BatonApp construct bundles each function with (esbuild `--alias`). */
declare module 'baton-app' {
  const app: import('@baton/core').BatonApp;
  export default app;
}
