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
