/**
 * What `baton` says of a command word it does not know — at the top (`baton stauts`) or after a
 * command (`baton dead-letters lst`): the word, and the known one it is likely a typo of.
 */

/**
 * How many single-character edits (insert, delete, replace, swap two neighbours) turn `a` into
 * `b`: the optimal string alignment distance.
 *
 * @example
 * editDistance('stauts', 'status'); // 1 (a swap)
 */
export function editDistance(a: string, b: string): number {
  // d[i][j]: the distance between the first i characters of a and the first j of b.
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known word `word` is most likely a typo of: the nearest, when a third of its letters or
 * fewer (at least one) are off; the first listed on a tie. `undefined` when none is that near.
 *
 * @example
 * closestWord('actor', ['status', 'actors']); // 'actors'
 */
export function closestWord(word: string, known: readonly string[]): string | undefined {
  const most = Math.max(1, Math.floor(word.length / 3));
  let best: { word: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(word.toLowerCase(), candidate);
    if (distance <= most && (best === undefined || distance < best.distance)) {
      best = { word: candidate, distance };
    }
  }
  return best?.word;
}

/**
 * The error for a first word `baton` has no command for, without the whole usage: the word, the
 * nearest command, and where the commands are listed.
 *
 * @example
 * unknownTopCommand('stauts', ['status', 'actors']);
 * // 'unknown command "stauts": did you mean "status"? baton --help lists the commands'
 */
export function unknownTopCommand(word: string, known: readonly string[]): string {
  const near = closestWord(word, known);
  return `unknown command "${word}": ${near ? `did you mean "${near}"? ` : ''}baton --help lists the commands`;
}
