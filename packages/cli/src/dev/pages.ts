/** The HTML the dev server serves itself: an app page's shell, a landing page, the inspector's. */

/**
 * An empty icon: without one a browser asks for `/favicon.ico`, which the dev server does not
 * serve, and the console of every page shows a 404 that is none of the app's doing.
 */
const NO_ICON = '<link rel="icon" href="data:,">';

import { escapeHtml } from '../escapeHtml.ts';

/**
 * `index.html` for the app's page: the WebSocket URL in `<meta name="baton-url">`, the
 * inspector's address in `<meta name="baton-inspector">` (for a link to it), and this run's
 * crash token in `<meta name="baton-crash-token">`: it arms a crash (a demo's button, see
 * `POST /_baton/crash`) and nothing else. The inspector's token, which acts as trusted code, is
 * not on the page the app's users sign in to, nor on its origin.
 */
export function appPageHtml(
  title: string,
  webSocketUrl: string,
  crashToken: string,
  inspectorUrl: string,
): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="baton-url" content="${escapeHtml(webSocketUrl)}">
    <meta name="baton-inspector" content="${escapeHtml(inspectorUrl)}">
    <meta name="baton-crash-token" content="${escapeHtml(crashToken)}">
    ${NO_ICON}
    <title>${escapeHtml(title)}</title>
  </head>
  <body><div id="root"></div><script type="module" src="/page.js"></script></body>
</html>`;
}

/** What `/` shows when the app has no `web/page.tsx`. */
export function landingHtml(title: string, origin: string, inspectorUrl: string): string {
  return `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8">${NO_ICON}<title>${escapeHtml(title)}</title>
  <style>body{font:15px/1.5 system-ui,sans-serif;max-width:46rem;margin:3rem auto;padding:0 1rem}
  code,pre{background:#f2f2f5;border-radius:4px;padding:.1rem .3rem}pre{padding:.8rem;overflow:auto}</style></head>
  <body>
    <h1>${escapeHtml(title)}</h1>
    <p>This app has no page (<code>web/page.tsx</code> beside its entry). Look inside it with the
    <a href="${escapeHtml(inspectorUrl)}">inspector</a> (on a port of its own), or send it a message:</p>
    <pre>curl -X POST ${escapeHtml(origin)}/ask -H 'content-type: application/json' \\
  -d '{"to": "type/key", "name": "message", "payload": {}}'</pre>
  </body>
</html>`;
}

/**
 * The inspector's shell, on the inspector's own port; `/_baton/inspector.js` fills it. `<meta name="baton-token">` holds this
 * run's token, which the inspector's actions and its live query carry.
 */
export function inspectorHtml(webSocketUrl: string, token: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="baton-url" content="${escapeHtml(webSocketUrl)}">
    <meta name="baton-token" content="${escapeHtml(token)}">
    ${NO_ICON}
    <title>Baton inspector</title>
  </head>
  <body><div id="root"></div><script type="module" src="/_baton/inspector.js"></script></body>
</html>`;
}

/**
 * What `/page.js` serves while `web/page.tsx` does not build: a script that shows the build's
 * error on the page and in the console. A 500 would leave the page blank, its console saying
 * only that a resource failed to load.
 */
export function buildErrorScript(error: string): string {
  const text = JSON.stringify(`the page does not build; fix it, save and reload:\n${error}`);
  return `const text = ${text};
console.error(text);
const show = () => {
  const pre = document.createElement('pre');
  pre.textContent = text;
  pre.style.cssText = 'margin:1rem;padding:1rem;white-space:pre-wrap;font:13px/1.5 monospace;background:#fff0f0;color:#900;border:1px solid #e0b0b0;border-radius:4px';
  document.body.replaceChildren(pre);
};
if (document.body) show();
else addEventListener('DOMContentLoaded', show);
`;
}
