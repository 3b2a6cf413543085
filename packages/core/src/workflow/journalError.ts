/**
 * Errors as a workflow's journal keeps them: cut to a size, as values are capped, keeping what
 * tells the failure (its code, its message's start, its causes' codes).
 */
import type { SerializedError } from '../errors.ts';
import { jsonSize } from '../shared/jsonSize.ts';

/** The most one error takes in the journal, its message, details and causes together. */
export const MAX_JOURNAL_ERROR_BYTES = 8 * 1024;
/** The most of an error's message a journal keeps, as JSON (an HTTP body thrown whole, say). */
const MAX_ERROR_MESSAGE_BYTES = 2_000;
/** How many errors of a list in an error's details (a saga's compensation errors) are kept. */
const MAX_LISTED_ERRORS = 10;
/** A detail that is no error is kept up to this size as JSON; a larger one is replaced by it. */
const MAX_DETAIL_BYTES = 1024;

/**
 * `error` cut to fit `budget` bytes as JSON, as the journal and the instance's outcome keep it:
 * values are capped when they are journaled, and errors must be too, or a step failing with a
 * large message would make its turn's record too large after the step ran. Its code is always
 * kept; its message is cut to 2,000 bytes (half the budget at most); an error in its details (a
 * step's `cause`) is cut alike to a quarter, a list of errors keeps its first ten within another
 * quarter, and a large detail of another kind is replaced by its size. What still does not fit
 * goes, the codes of its causes said.
 *
 * @example
 * journalError(stepFailed('notify', 1, new TerminalError(body)).toJSON()); // ≤ 8 KiB
 */
export function journalError(
  error: SerializedError,
  budget = MAX_JOURNAL_ERROR_BYTES,
): SerializedError {
  if (jsonSize(error) <= budget) return error;
  const message = cutText(String(error.message), Math.min(MAX_ERROR_MESSAGE_BYTES, budget / 2));
  const details: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error.details ?? {})) {
    if (isSerializedError(value)) details[key] = journalError(value, Math.floor(budget / 4));
    else if (Array.isArray(value) && value.length > 0 && value.every(isSerializedError)) {
      const kept = value.slice(0, MAX_LISTED_ERRORS);
      const each = Math.floor(budget / 4 / kept.length);
      details[key] = kept.map((e) => journalError(e, each));
      if (value.length > kept.length) details[`${key}Cut`] = value.length - kept.length;
    } else {
      const size = jsonSize(value);
      details[key] = size <= MAX_DETAIL_BYTES ? value : { cut: size };
    }
  }
  const cut = { code: error.code, message, details };
  if (jsonSize(cut) <= budget) return cut;
  // Still too large (many details): the codes of the causes are what is left to tell.
  const causes = Object.values(error.details ?? {})
    .filter(isSerializedError)
    .map((e) => e.code);
  return { code: error.code, message, details: { detailsCut: jsonSize(error.details), causes } };
}

/**
 * `text` cut, where it must be, to at most `bytes` as JSON (its escapes and UTF-8 counted), at a
 * whole character, saying how much was cut.
 */
function cutText(text: string, bytes: number): string {
  if (jsonSize(text) <= bytes) return text;
  const note = (n: number) => `… (${n} more characters cut)`;
  const fits = (end: number) => jsonSize(text.slice(0, end) + note(text.length - end)) <= bytes;
  // The longest start that fits, by halving: a character takes 1 to 6 bytes as JSON.
  let [low, high] = [0, Math.min(text.length, bytes)];
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(mid)) low = mid;
    else high = mid - 1;
  }
  let end = low;
  // Not half a surrogate pair.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return text.slice(0, end) + note(text.length - end);
}

function isSerializedError(value: unknown): value is SerializedError {
  const error = value as Partial<SerializedError> | null;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof error.code === 'string' &&
    typeof error.message === 'string'
  );
}
