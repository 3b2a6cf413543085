import { BatonError, type ErrorCode } from '@baton/core';

/**
 * Why the protocol refused a frame, found in `error.details.reason` next to the error's core
 * `code` (which is what retry logic should match on): `INVALID_PAYLOAD` for a malformed frame
 * or patch, `MESSAGE_TOO_LARGE` for a frame or reassembled message over its limit, and
 * `UNAVAILABLE` (retryable) when chunks were dropped or the reassembly buffers are full.
 *
 * @example
 * try {
 *   decodeClientMessage(text);
 * } catch (error) {
 *   if (isBatonError(error) && error.details.reason === ProtocolErrorReason.UNSUPPORTED_VERSION) {
 *     console.log('supported versions:', error.details.supported);
 *   }
 * }
 */
export const ProtocolErrorReason = {
  /** One frame is over `maxFrameBytes`. Code MESSAGE_TOO_LARGE. */
  FRAME_TOO_LARGE: 'FRAME_TOO_LARGE',
  /** The frame is not JSON. Code INVALID_PAYLOAD. */
  NOT_JSON: 'NOT_JSON',
  /** The frame is JSON but not an object. Code INVALID_PAYLOAD. */
  NOT_AN_OBJECT: 'NOT_AN_OBJECT',
  /** `v` is missing or not a supported version; `details.supported` lists those. INVALID_PAYLOAD. */
  UNSUPPORTED_VERSION: 'UNSUPPORTED_VERSION',
  /** `type` is missing or not a type this side receives. Code INVALID_PAYLOAD. */
  UNKNOWN_TYPE: 'UNKNOWN_TYPE',
  /** A field is missing or of the wrong type; `details.field` names it. Code INVALID_PAYLOAD. */
  INVALID_FIELD: 'INVALID_FIELD',
  /** A chunk contradicts the others of its frame (count, data, nesting). Code INVALID_PAYLOAD. */
  INVALID_CHUNK: 'INVALID_CHUNK',
  /** A chunked message is over the assembler's `maxMessageBytes`. Code MESSAGE_TOO_LARGE. */
  CHUNKED_MESSAGE_TOO_LARGE: 'CHUNKED_MESSAGE_TOO_LARGE',
  /** The assembler holds too many incomplete messages or bytes. Code UNAVAILABLE. */
  CHUNK_BUFFER_FULL: 'CHUNK_BUFFER_FULL',
  /** A chunked message was not complete within the assembler's timeout. Code UNAVAILABLE. */
  CHUNK_TIMEOUT: 'CHUNK_TIMEOUT',
  /** A patch's path does not fit the document. Code INVALID_PAYLOAD. */
  INVALID_PATCH: 'INVALID_PATCH',
  /** A message cannot be encoded as JSON (a BigInt, a cycle). Code INVALID_PAYLOAD. */
  NOT_ENCODABLE: 'NOT_ENCODABLE',
} as const;

export type ProtocolErrorReason = (typeof ProtocolErrorReason)[keyof typeof ProtocolErrorReason];

/** Builds the BatonError for a protocol problem, with `details.reason` set. */
export function protocolError(
  code: ErrorCode,
  reason: ProtocolErrorReason,
  message: string,
  details: Record<string, unknown> = {},
): BatonError {
  return new BatonError(code, message, { details: { reason, ...details } });
}
