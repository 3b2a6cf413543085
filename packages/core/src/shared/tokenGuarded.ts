/**
 * Marks a public handler whose authorization is a token in its payload (a workflow's
 * `callback`): anyone holding one may send it, but it is no door a client looks for, so
 * refusals and the lists of what clients may send leave it out (`access.ts`).
 */
export const TOKEN_GUARDED: unique symbol = Symbol('baton.tokenGuarded');
