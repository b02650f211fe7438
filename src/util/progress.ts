import cliProgress from 'cli-progress';
import type { ProgressFactory } from '../core/context.js';


/** No output at all (tests, `--quiet`). */
export const silentProgress: ProgressFactory = () => ({ increment() {}, stop() {} });

/**
 * On a terminal: a cli-progress bar with rate and ETA (on stderr).
 * Otherwise: plain lines on stderr, at most one every `intervalMs`, plus a final line.
 */
export function createProgressFactory(opts: { tty?: boolean; intervalMs?: number; stream?: NodeJS.WriteStream } = {}): ProgressFactory {
  const stream = opts.stream ?? process.stderr;
  const tty = opts.tty ?? Boolean(stream.isTTY);
  const intervalMs = opts.intervalMs ?? 5000;
  return (label, total, unit = 'items') => {
    const started = Date.now();
    if (tty) {
      const bar = new cliProgress.SingleBar(
        {
          stream,
          format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | {rate}/s | ETA {eta_formatted}`,
          hideCursor: true,
          clearOnComplete: false,
          etaBuffer: 50,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(total, 0, { rate: '0' });
      let done = 0;
      return {
        increment(n = 1) {
          done += n;
          const secs = Math.max((Date.now() - started) / 1000, 1e-3);
          bar.increment(n, { rate: (done / secs).toFixed(1) });
        },
        stop() {
          bar.stop();
        },
      };
    }
    let done = 0;
    let last = started;
    const line = (final: boolean) => {
      const secs = Math.max((Date.now() - started) / 1000, 1e-3);
      const rate = done / secs;
      const eta = rate > 0 && !final ? ` eta ${Math.ceil((total - done) / rate)}s` : '';
      stream.write(`${label}: ${done}/${total} ${unit} (${rate.toFixed(1)}/s${eta})${final ? ` done in ${secs.toFixed(1)}s` : ''}\n`);
    };
    return {
      increment(n = 1) {
        done += n;
        const now = Date.now();
        if (now - last >= intervalMs) {
          last = now;
          line(false);
        }
      },
      stop() {
        line(true);
      },
    };
  };
}
