import { countTokensRaw } from './count';

/**
 * Counts o200k tokens of a text that arrives line by line, without ever holding it whole.
 *
 * Why not call countTokens on the whole log: (1) a 100 MB log would have to sit in memory, and (2) the BPE
 * merge in gpt-tokenizer is quadratic in the length of one pre-token — 100,000 characters without a space take
 * seconds, a 1 MB line of base64 or binary junk would take minutes. So lines are batched (pre-tokens never
 * cross a newline, so batching at line ends gives the same count) and any single line longer than
 * SLICE characters is counted in slices, which over-counts by at most one token per slice.
 */
const BATCH_CHARS = 64 * 1024;
export const SLICE = 1024;

export class TokenTally {
  private batch: string[] = [];
  private batchChars = 0;
  private total = 0;

  /** Adds one line (without its newline); `newline` says whether a newline followed it. */
  push(line: string, newline: boolean): void {
    const text = newline ? line + '\n' : line;
    if (line.length > SLICE) {
      this.flush();
      this.total += countLongText(text);
      return;
    }
    this.batch.push(text);
    this.batchChars += text.length;
    if (this.batchChars >= BATCH_CHARS) this.flush();
  }

  /** Adds a fragment of a line that is too long to keep (no newline inside). */
  pushFragment(fragment: string): void {
    this.flush();
    this.total += countLongText(fragment);
  }

  get count(): number {
    this.flush();
    return this.total;
  }

  private flush(): void {
    if (!this.batch.length) return;
    this.total += countTokensRaw(this.batch.join(''));
    this.batch = [];
    this.batchChars = 0;
  }
}

function countLongText(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i += SLICE) n += countTokensRaw(text.slice(i, i + SLICE));
  return n;
}

/** Token count of any string, safe against pathological long lines (see TokenTally). */
export function countTokensSafe(text: string): number {
  const tally = new TokenTally();
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) {
      if (start < text.length) tally.push(text.slice(start), false);
      break;
    }
    tally.push(text.slice(start, nl), true);
    start = nl + 1;
  }
  return tally.count;
}
