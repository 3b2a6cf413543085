/** JSON Pointer (RFC 6901) tokens. */

/** Escapes one key or index for a pointer: `~` → `~0`, `/` → `~1`. */
export function escapeToken(token: string): string {
  if (!token.includes('~') && !token.includes('/')) return token;
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Splits a pointer into unescaped tokens; `undefined` when it is not a valid pointer. */
export function parsePointer(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (pointer[0] !== '/') return undefined;
  const tokens = pointer.slice(1).split('/');
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (!token.includes('~')) continue;
    if (/~(?![01])/.test(token)) return undefined;
    tokens[i] = token.replace(/~1/g, '/').replace(/~0/g, '~');
  }
  return tokens;
}

/** An array index token: `0` or a number without leading zeros. */
export function arrayIndex(token: string): number | undefined {
  return /^(?:0|[1-9][0-9]*)$/.test(token) ? Number(token) : undefined;
}
