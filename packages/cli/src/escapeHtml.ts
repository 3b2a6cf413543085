/** `text` with `&`, `<`, `>` and `"` escaped, safe inside HTML text and double-quoted attributes. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
