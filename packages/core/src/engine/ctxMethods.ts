/**
 * The types of a handler context's methods as the engine makes them (see `createHandlerContext`).
 */
import type { ActorContext } from '../ActorContext.ts';

/** A method of the `ActorContext` of one handling, or `undefined` until its first use. */
export type CtxMethod<K extends keyof ActorContext<unknown>> = ActorContext<unknown>[K] | undefined;

/**
 * A ctx method as its handler calls it: refused once the handler has returned, its refusals
 * naming the handler (see `HandlerContext.#named`). A change to `ctx.state` after the return is
 * lost too: nothing can see it.
 */
export type HandlerCall<A extends unknown[], R> = (...args: A) => R;
