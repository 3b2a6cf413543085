/** The last lines a child process printed, bounded, for error messages. */
export class OutputTail {
  readonly #lines: string[] = [];
  readonly #maxLines: number;
  #partial = '';

  constructor(maxLines = 40) {
    this.#maxLines = maxLines;
  }

  push(chunk: Buffer | string): void {
    const text = this.#partial + chunk.toString();
    const lines = text.split(/\r?\n/);
    this.#partial = lines.pop() ?? '';
    for (const line of lines) this.#add(line);
    if (this.#partial.length > 4_000) {
      this.#add(this.#partial);
      this.#partial = '';
    }
  }

  /** Whether any kept line matches. */
  some(pattern: RegExp): boolean {
    return this.#lines.some((line) => pattern.test(line)) || pattern.test(this.#partial);
  }

  toString(): string {
    const all = this.#partial === '' ? this.#lines : [...this.#lines, this.#partial];
    return all.join('\n');
  }

  #add(line: string): void {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI colour codes
    const clean = line.replace(/\x1b\[[0-9;]*m/g, '');
    if (clean.trim() === '') return;
    this.#lines.push(clean);
    if (this.#lines.length > this.#maxLines) this.#lines.shift();
  }
}
