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

/**
 * The page's content security policy, sent with it by CloudFront (infra/) and by the local
 * server alike: its own script only (no inline script, no eval), inline styles (the page sets
 * its CSS from its script), its own origin and its WebSocket API (`webSocketOrigin`, e.g.
 * `wss://<api>.execute-api.<region>.amazonaws.com`) to talk to, nothing to frame it, no plugins,
 * no base or form target elsewhere.
 *
 * @example
 * pagePolicy('ws://127.0.0.1:4000'); // "default-src 'none'; script-src 'self'; …"
 */
export function pagePolicy(webSocketOrigin: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self' ${webSocketOrigin}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
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
