/**
 * The tokenised texts of one encoding run, in input order, kept out of the JavaScript heap: ids in
 * an `IntListSpill` (one 4 MiB block in memory, the rest in a temporary file), a truncated flag per
 * text. Batches read back only their own rows, so memory follows the number of texts, not their
 * tokens (a static model like GloVe keeps every word of every document).
 */
import { IntListSpill, type IntListSpillOptions } from '../../../util/int-list-spill.js';

export interface TokenizedRow {
  ids: ArrayLike<number>;
  truncated: boolean;
}

export class TokenizedTexts {
  private readonly ids: IntListSpill;
  private truncatedFlags = new Uint8Array(1024);

  constructor(o: IntListSpillOptions = {}) {
    this.ids = new IntListSpill(o);
  }

  get size(): number {
    return this.ids.size;
  }

  /** Whether ids went to the temporary file (tests). */
  get spilled(): boolean {
    return this.ids.spilled;
  }

  push(t: TokenizedRow): number {
    const i = this.ids.push(t.ids);
    if (i >= this.truncatedFlags.length) {
      const f = new Uint8Array(this.truncatedFlags.length * 2);
      f.set(this.truncatedFlags);
      this.truncatedFlags = f;
    }
    this.truncatedFlags[i] = t.truncated ? 1 : 0;
    return i;
  }

  length(i: number): number {
    return this.ids.length(i);
  }

  truncated(i: number): boolean {
    this.ids.length(i); // range check
    return this.truncatedFlags[i] === 1;
  }

  /** Text `i`'s ids (a copy) and flag. */
  get(i: number): { ids: Int32Array; truncated: boolean } {
    return { ids: this.ids.get(i), truncated: this.truncatedFlags[i] === 1 };
  }

  dispose(): void {
    this.ids.dispose();
  }
}
