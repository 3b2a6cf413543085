/**
 * The bank's page as files: `index.html`, which names the WebSocket URL to connect to, and
 * `page.js`, page.tsx with React, `@baton/react` and `@baton/client` bundled into one ES module.
 * The local host serves them; the CDK app uploads them next to the deployed API.
 */
import { join } from 'node:path';
import { buildSync } from 'esbuild';

/** `index.html` for a page that connects to `webSocketUrl`. */
export function pageHtml(webSocketUrl: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="baton-url" content="${webSocketUrl}">
    <title>Baton bank</title>
  </head>
  <body><div id="root"></div><script type="module" src="page.js"></script></body>
</html>`;
}

/** `page.js`: the page bundled, minified, for browsers. */
export function pageScript(): string {
  const result = buildSync({
    entryPoints: [join(import.meta.dirname, 'page.tsx')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}
