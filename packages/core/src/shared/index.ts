/**
 * `@baton/core/shared`: the helpers every layer uses, the browser client and the wire protocol
 * included — canonical JSON, one UTF-8 byte count, seeded randomness and UUIDs. Pure functions
 * with no Node built-in, importing nothing of the adapter ports or the engine.
 */
export { canonicalJson } from './canonicalJson.ts';
export { lifeId, type Random, seededRandom, uuidFrom } from './random.ts';
export { fitsUtf8, isHighSurrogate, isLowSurrogate, utf8ByteLength, utf8Bytes } from './utf8.ts';
