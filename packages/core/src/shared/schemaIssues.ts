/** How Baton names what a schema refused: each issue by its path, and all of them in one line. */
import { clip } from './clip.ts';

/** An issue as a schema gives it: where, and what is wrong there. */
export interface SchemaIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/**
 * The most issues a refusal names. A refusal goes back to whoever sent the value: one naming
 * every bad entry of a long array would be many times the request's size.
 */
export const MAX_SCHEMA_ISSUES = 20;

/**
 * `issues`, each with its path under `root` (`payload.amount`), and all in one line
 * (`payload.amount: Too small; payload.to: Required`): the first {@link MAX_SCHEMA_ISSUES},
 * then how many more (`more`). A path's keys, which come from the value, are clipped, as is a message
 * (zod's lists the unknown keys it met).
 */
export function schemaIssues(
  root: string,
  issues: readonly SchemaIssue[],
): { found: { path: string; message: string }[]; summary: string; more: number } {
  const found = issues.slice(0, MAX_SCHEMA_ISSUES).map((issue) => ({
    path: [root, ...issue.path.map((key) => clip(String(key)))].join('.'),
    message: clip(issue.message, 256),
  }));
  const more = issues.length - found.length;
  const summary = found.map((i) => `${i.path}: ${i.message}`).join('; ');
  return { found, summary: more > 0 ? `${summary}; and ${more} more` : summary, more };
}
