/**
 * A bulk action (`dead-letters redrive --all`, `purge --all`, `workflows resume --all`) acts on
 * its items one by one and stops at the first that fails. Failing after others were done, its
 * error says so: what it did, the item it stopped at and why, and what it did not reach — in
 * `--json` too, under `details.partway`, what it did as the command's success gives it — and the command exits 1 (failed), not 2: the item's
 * own refusal ("nothing was sent to …", INVALID_ARGUMENT) speaks of that item alone, and would
 * read as a mistyped command.
 */
import { BatonError, ErrorCode, isBatonError } from '@baton/core';

/** What a bulk action's error says of its items. */
export interface BulkWords<T> {
  /** What it did to each, in the past: `redrove`. */
  readonly did: string;
  /** What its items are, counted: `dead letter(s)`. */
  readonly items: string;
  /** An item as the operator reads it, in the message: `tally/a 'ingress:[…]'`. */
  readonly name: (item: T) => string;
  /** An item as `details.partway` gives it, in `--json`: `{ actor, messageId }`. */
  readonly json: (item: T) => unknown;
  /** What to do once the cause is fixed: `run it again: a letter redriven twice is applied once`. */
  readonly again: string;
}

/** The most items of each kind the message names; `details.partway` has them all. */
const NAMED = 5;

/**
 * `act` on each of `items` in turn, resolving with what each gave. The first to fail stops it:
 * that item's own error when it is the first, else one that says how far it got (see above).
 */
export async function eachInTurn<T, R>(
  items: readonly T[],
  act: (item: T) => Promise<R>,
  words: BulkWords<T>,
): Promise<R[]> {
  const results: R[] = [];
  for (const [index, item] of items.entries()) {
    try {
      results.push(await act(item));
    } catch (error) {
      if (index === 0) throw error;
      throw stoppedPartway(error, items, results, words);
    }
  }
  return results;
}

/** Whether `error` is a bulk action's that did part of its work (the command exits 1). */
export function isPartway(error: unknown): boolean {
  return isBatonError(error) && error.details.partway !== undefined;
}

function stoppedPartway<T, R>(
  error: unknown,
  items: readonly T[],
  results: readonly R[],
  { did, items: what, name, json, again }: BulkWords<T>,
): BatonError {
  const index = results.length;
  const item = items[index]!;
  const rest = items.slice(index + 1);
  const cause = isBatonError(error) ? error : undefined;
  const message = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');
  const reached = rest.length === 0 ? '' : ` Not reached: ${listed(rest.map(name))}.`;
  return new BatonError(
    cause?.code ?? ErrorCode.UNAVAILABLE,
    `${did} ${index} of the ${items.length} ${what} (${listed(items.slice(0, index).map(name))}), then stopped at ${name(item)}: ${message}.${reached} ${again}`,
    {
      cause: error,
      details: {
        ...cause?.details,
        partway: { done: results, at: json(item), notReached: rest.map(json) },
      },
    },
  );
}

/** `a, b, c`, or the first few and how many more. */
function listed(names: readonly string[]): string {
  if (names.length <= NAMED) return names.join(', ');
  return `${names.slice(0, NAMED).join(', ')} and ${names.length - NAMED} more`;
}
