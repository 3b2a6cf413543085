/**
 * The progress bar on stderr: the step being run and its rounds. Drawn in place only when
 * stderr is a terminal; otherwise one plain line per finished step.
 */
const tty = process.stderr.isTTY === true;
const WIDTH = 24;

let step = { index: 0, total: 0, title: '' };
let started = 0;

/** A step starts (1-based `index` of `total`). */
export function startStep(index: number, total: number, title: string): void {
  step = { index, total, title };
  started = Date.now();
  draw(0, 0);
}

/** `done` of `total` rounds of the current step are finished. */
export function roundDone(done: number, total: number): void {
  draw(done, total);
}

/** The current step is finished. */
export function endStep(): void {
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (tty) process.stderr.write('\r\x1b[2K');
  else process.stderr.write(`[${step.index}/${step.total}] ${step.title} (${seconds} s)\n`);
}

function draw(done: number, total: number): void {
  if (!tty || step.total === 0) return;
  const fraction = (step.index - 1 + (total > 0 ? done / total : 0)) / step.total;
  const filled = Math.round(fraction * WIDTH);
  const bar = `${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)}`;
  const rounds = total > 0 ? ` round ${done}/${total}` : '';
  const columns = process.stderr.columns ?? 100;
  const line = `${bar} ${Math.round(fraction * 100)}% [${step.index}/${step.total}] ${step.title}${rounds}`;
  process.stderr.write(`\r\x1b[2K${line.slice(0, columns - 1)}`);
}
