/** How Baton names what a schema refused: each issue by its path, and all of them in one line. */

/** An issue as a schema gives it: where, and what is wrong there. */
export interface SchemaIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/**
 * `issues`, each with its path under `root` (`payload.amount`), and all in one line
 * (`payload.amount: Too small; payload.to: Required`).
 */
export function schemaIssues(
  root: string,
  issues: readonly SchemaIssue[],
): { found: { path: string; message: string }[]; summary: string } {
  const found = issues.map((issue) => ({
    path: [root, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  return { found, summary: found.map((i) => `${i.path}: ${i.message}`).join('; ') };
}
