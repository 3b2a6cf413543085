/** The most characters of a caller's string that an error repeats. */
export const CLIP_CHARS = 64;

/**
 * `text` as an error repeats it: whole up to `max` ({@link CLIP_CHARS}) characters, else their
 * first ones and `…`. A refusal goes back to whoever sent the text (and may be logged): one that
 * repeated a long name or id whole would be as large as the request, or twice as large.
 *
 * @example
 * `no public query "${clip(name)}"`;
 */
export function clip(text: string, max = CLIP_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
