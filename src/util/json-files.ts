/**
 * A model folder's JSON files checked before a library reads them, so a broken one is reported as
 * `<file>: malformed JSON: …` (naming the file) instead of a bare parser message.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../core/errors.js';

/** The JSON files transformers.js reads from a model folder (those present are checked). */
export const MODEL_JSON_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'generation_config.json'] as const;

export function assertJsonFilesParse(dir: string, names: readonly string[] = MODEL_JSON_FILES): void {
  for (const name of names) {
    const file = join(dir, name);
    if (!existsSync(file)) continue;
    try {
      JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new UserError(`${file}: malformed JSON: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`);
    }
  }
}
