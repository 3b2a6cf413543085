/** Tells when the page may have its network back: `online`, or the tab becoming visible. */
export interface PageEvents {
  /** Calls `wake` on each such event; returns a function that stops listening. */
  listen(wake: () => void): () => void;
}

/**
 * The browser's page events, or `undefined` outside a browser (no `window`/`document`).
 */
export function browserPageEvents(): PageEvents | undefined {
  const win = (globalThis as { window?: EventTarget }).window;
  const doc = (globalThis as { document?: EventTarget & { visibilityState?: string } }).document;
  if (win === undefined && doc === undefined) return undefined;
  return {
    listen(wake) {
      const onVisibility = () => {
        if (doc?.visibilityState === 'visible') wake();
      };
      win?.addEventListener('online', wake);
      doc?.addEventListener('visibilitychange', onVisibility);
      return () => {
        win?.removeEventListener('online', wake);
        doc?.removeEventListener('visibilitychange', onVisibility);
      };
    },
  };
}
