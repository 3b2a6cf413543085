/**
 * Marks a public handler whose authorization is a token in its payload (a workflow's
 * `callback`), or a public query whose args hold one (`baton dev`'s inspector's): anyone holding
 * one may send it, or subscribe, but it is no door a client looks for, so refusals and the lists
 * of what clients may send or subscribe to leave it out (`access.ts`).
 */
export const TOKEN_GUARDED: unique symbol = Symbol('baton.tokenGuarded');
