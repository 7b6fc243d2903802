import type { Writable } from 'node:stream';

/** A one-line progress bar on a terminal; silent when stderr is not a TTY (CI logs, pipes, hooks). */
export function progressBar(stream: Writable, label: string): { update(done: number, total: number): void; end(): void } {
  const tty = (stream as NodeJS.WriteStream).isTTY === true;
  let shown = false;
  return {
    update(done, total) {
      if (!tty || total < 200) return;
      const width = 30;
      const filled = Math.round((done / total) * width);
      stream.write(`\r${label} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${done}/${total}`);
      shown = true;
    },
    end() {
      if (shown) stream.write('\r\x1b[K');
    },
  };
}

export interface EtaProgress {
  update(done: number, total: number): void;
  end(): void;
}

/** "1 min 05 s", "12 s": an ETA a person reads at a glance. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${String(s % 60).padStart(2, '0')} s` : `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/**
 * Progress of a long job with a rate and an ETA (from the average so far): a redrawn bar on a terminal, and one
 * plain line at most every `everyMs` otherwise (CI logs and pipes keep a record without a flood of lines).
 */
export function etaProgress(stream: Writable, label: string, unit: string, opts: { everyMs?: number; now?: () => number; tty?: boolean } = {}): EtaProgress {
  const tty = opts.tty ?? (stream as NodeJS.WriteStream).isTTY === true;
  const now = opts.now ?? (() => performance.now());
  const everyMs = opts.everyMs ?? 1000;
  const started = now();
  let lastLine = -Infinity;
  let shown = false;
  const describe = (done: number, total: number) => {
    const elapsed = now() - started;
    const rate = elapsed > 0 ? (done * 1000) / elapsed : 0;
    const eta = rate > 0 && done < total ? `, ETA ${formatDuration(((total - done) / rate) * 1000)}` : '';
    return `${done.toLocaleString('en-US')} / ${total.toLocaleString('en-US')} ${unit} (${rate.toFixed(1)}/s${eta})`;
  };
  return {
    update(done, total) {
      if (tty) {
        const width = 30;
        const filled = total ? Math.round((done / total) * width) : width;
        stream.write(`\r\x1b[K${label} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${describe(done, total)}`);
        shown = true;
        return;
      }
      const t = now();
      if (t - lastLine < everyMs && done < total) return;
      lastLine = t;
      stream.write(`${label}: ${describe(done, total)}\n`);
    },
    end() {
      if (shown) stream.write('\r\x1b[K');
    },
  };
}
