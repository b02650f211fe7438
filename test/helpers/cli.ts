/**
 * Test helpers for the CLI and user errors: run `main()` in process capturing stdout and
 * stderr, and get the one-line message of a UserError that a call or a config must raise (or,
 * for a config with several problems, every line).
 */
import { expect, vi } from 'vitest';
import { main } from '../../src/cli.js';
import { parseConfig } from '../../src/pipeline/config.js';
import { UserError } from '../../src/core/errors.js';

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** Runs the CLI in this process; stderr is captured instead of printed. */
export async function runCli(args: string[]): Promise<CliResult> {
  let out = '';
  let err = '';
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
    err += String(s);
    return true;
  });
  try {
    return { code: await main(args, (s) => void (out += s)), out, err };
  } finally {
    spy.mockRestore();
  }
}

/** The message of the UserError `text` must raise as a config (asserted to be one line). */
export function configError(text: string, file = '/cfg/x.yaml'): string {
  try {
    parseConfig(text, file);
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    const m = (e as Error).message;
    expect(m).not.toContain('\n');
    return m;
  }
  throw new Error('expected a UserError');
}

/** Every problem (one line each, in the order printed) of the UserError `text` must raise as a config. */
export function configProblems(text: string, file = '/cfg/x.yaml'): string[] {
  try {
    parseConfig(text, file);
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    return (e as Error).message.split('\n');
  }
  throw new Error('expected a UserError');
}

/** The message of the UserError `p` must reject with (asserted to be one line). */
export async function userError(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    const m = (e as Error).message;
    expect(m).not.toContain('\n');
    return m;
  }
  throw new Error('expected a UserError, got success');
}
