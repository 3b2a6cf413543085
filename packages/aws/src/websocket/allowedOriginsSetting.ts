/**
 * The deployed WebSocket API's `allowedOrigins`: the construct's prop, passed to the WebSocket
 * function as `BATON_ALLOWED_ORIGINS` (origins separated by commas) and read at its cold start.
 * One check serves both, so synth refuses what the function would.
 */
import { invalidArgument } from '@baton/core/adapter';
import { originCheck } from '@baton/server/session';
import { BATON_ENV } from '../environment.ts';

const SEPARATOR = ',';

/**
 * What is wrong with `origins` as a list of allowed origins, a line each (`name` says where
 * they were given); none when each is `scheme://host[:port]`.
 *
 * @example
 * allowedOriginsProblems(['https://app.example.com/'], 'allowedOrigins'); // []
 */
export function allowedOriginsProblems(origins: unknown, name: string): string[] {
  if (!Array.isArray(origins)) {
    return [`${name} must be a list of origins, e.g. ['https://app.example.com']`];
  }
  const problems: string[] = [];
  originCheck(origins, problems, name);
  // An origin holds no comma: one would split into two entries on the way to the function.
  for (const origin of origins) {
    if (typeof origin === 'string' && origin.includes(SEPARATOR)) {
      problems.push(`${JSON.stringify(origin)} is two origins or none: give each as its own entry`);
    }
  }
  return problems;
}

/** `origins` as the WebSocket function's environment holds them. */
export function allowedOriginsVariable(origins: readonly string[]): string {
  return origins.join(SEPARATOR);
}

/**
 * The `allowedOrigins` that `BATON_ALLOWED_ORIGINS` lists; none when it is unset (every origin
 * may connect). Throws INVALID_ARGUMENT naming the variable and the bad entry, so a function
 * deployed with a malformed list fails at cold start rather than refuse every page.
 *
 * @example
 * websocketHandler({ ...options, ...allowedOriginsFromEnvironment() });
 */
export function allowedOriginsFromEnvironment(
  env: Readonly<Record<string, string | undefined>> = process.env,
): { allowedOrigins?: string[] } {
  const name = BATON_ENV.allowedOrigins;
  const value = env[name];
  if (value === undefined || value.trim() === '') return {};
  const allowedOrigins = value
    .split(SEPARATOR)
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  const problems = allowedOriginsProblems(allowedOrigins, name);
  if (problems.length > 0) {
    throw invalidArgument(`${name} must list origins separated by commas: ${problems.join('; ')}`, {
      variable: name,
      value,
    });
  }
  return { allowedOrigins };
}
