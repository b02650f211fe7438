/** Progress: plain periodic lines when not on a terminal, a bar with rate and ETA on one. */
import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createProgressFactory } from '../src/util/progress.js';

function sink(tty: boolean): { stream: NodeJS.WriteStream; text: () => string } {
  let buf = '';
  const w = new Writable({
    write(chunk, _enc, cb) {
      buf += String(chunk);
      cb();
    },
  }) as unknown as NodeJS.WriteStream;
  (w as { isTTY?: boolean }).isTTY = tty;
  (w as { columns?: number }).columns = 120;
  return { stream: w, text: () => buf };
}

describe('progress', () => {
  it('prints plain lines with counts, rate and ETA when stderr is not a TTY', () => {
    const s = sink(false);
    const p = createProgressFactory({ stream: s.stream, intervalMs: 0 })('encoding', 10, 'docs');
    p.increment(4);
    p.increment(6);
    p.stop();
    const lines = s.text().trim().split('\n');
    expect(lines[0]).toMatch(/^encoding: 4\/10 docs \(\d+(\.\d)?\/s eta \d+s\)$/);
    expect(lines.at(-1)).toMatch(/^encoding: 10\/10 docs \(\d+(\.\d)?\/s\) done in \d+\.\ds$/);
    expect(s.text()).not.toContain('\u001b');
  });

  it('rate-limits plain lines', () => {
    const s = sink(false);
    const p = createProgressFactory({ stream: s.stream, intervalMs: 60_000 })('q', 1000);
    for (let i = 0; i < 1000; i++) p.increment();
    p.stop();
    expect(s.text().trim().split('\n')).toHaveLength(1);
  });

  it('draws a bar with rate and ETA on a terminal', () => {
    const s = sink(true);
    const p = createProgressFactory({ stream: s.stream, tty: true })('index', 4, 'docs');
    p.increment(2);
    p.stop();
    expect(s.text()).toMatch(/index \[.*\] \d+% \| \d\/4 docs \| [\d.]+\/s \| ETA/);
  });
});
