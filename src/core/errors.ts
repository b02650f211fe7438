/**
 * A problem with the user's input (data, config, run file, flags), or several found together (every
 * problem of a config and of the models, files and servers its plan needs).
 * The CLI prints each of `problems` as one line and exits with code 2, never a stack trace.
 * Build messages with `where()` so they name the file, line and field: each problem is
 * self-contained (`file:line: key.path: message`), so the first line alone says what is wrong.
 */
export class UserError extends Error {
  override readonly name = 'UserError';
  /** One self-contained line per problem (at least one); `message` is them joined by newlines. */
  readonly problems: readonly string[];
  constructor(message: string | readonly string[]) {
    const problems = typeof message === 'string' ? [message] : [...message];
    if (problems.length === 0) throw new Error('UserError: no problem given');
    super(problems.join('\n'));
    this.problems = problems;
  }
}

/** Formats a location prefix: `file:line: field: ` (line and field optional). */
export function where(file: string, line?: number, field?: string): string {
  let s = file;
  if (line !== undefined) s += `:${line}`;
  s += ': ';
  if (field !== undefined && field !== '') s += `${field}: `;
  return s;
}

export function isUserError(e: unknown): e is UserError {
  return e instanceof UserError;
}

/**
 * A check the user asked for did not pass (e.g. `compare --check` with a FAIL verdict, a failed
 * regression gate of `run` or `score`): the CLI has already printed the output, prints each of
 * `lines` (the message, or one line per failed check) on its own line and exits with code 1.
 */
export class CheckFailure extends Error {
  override readonly name = 'CheckFailure';
  /** One self-contained line per failed check (at least one); `message` is them joined by newlines. */
  readonly lines: readonly string[];
  constructor(message: string | readonly string[]) {
    const lines = typeof message === 'string' ? [message] : [...message];
    if (lines.length === 0) throw new Error('CheckFailure: no line given');
    super(lines.join('\n'));
    this.lines = lines;
  }
}
