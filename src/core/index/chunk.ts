import type { ParsedNote } from '../vault/markdown';
import { countWords } from './wordCount';

export interface Chunk {
  ord: number;
  heading: string;
  text: string;
  line: number;
  endLine: number;
}

/**
 * Heading-aware chunks of about `targetWords` words. The embedding model truncates at 128 tokens, so chunks stay
 * small; a chunk never spans two sections, and an oversized block is cut at word boundaries.
 */
export function chunkNote(note: ParsedNote, targetWords = 100): Chunk[] {
  const chunks: Chunk[] = [];
  const oversized = targetWords * 1.5;
  let heading = '';
  let buf: string[] = [];
  let words = 0;
  let line = 0;
  let endLine = 0;

  const emit = () => {
    if (buf.length) chunks.push({ ord: chunks.length, heading, text: buf.join('\n'), line, endLine });
    buf = [];
    words = 0;
  };

  // Blocks under one heading share their path's contents, so the joined label is worked out once per section.
  let lastPath: string[] | undefined;
  let lastLabel = '';
  for (const block of note.blocks) {
    if (!lastPath || !samePath(lastPath, block.headingPath)) {
      lastPath = block.headingPath;
      lastLabel = block.headingPath.filter(Boolean).join(' > ');
    }
    const blockHeading = lastLabel;
    if (block.kind === 'heading' || blockHeading !== heading) {
      emit();
      heading = blockHeading;
      if (block.kind === 'heading') continue;
    }
    // Counting stops past the oversized limit: such a block is cut into pieces anyway, and any count above the
    // limit takes the same branches below.
    const blockWordCount = countWords(block.text, oversized + 1);
    if (!blockWordCount) continue;
    if (words + blockWordCount > targetWords && words > 0) emit();
    if (blockWordCount > oversized) {
      // emit() zeroes the word count, so each piece is emitted on its own.
      for (const piece of wordRuns(block.text, targetWords)) {
        buf = [piece];
        line = block.line;
        endLine = block.endLine;
        emit();
      }
      continue;
    }
    if (!buf.length) line = block.line;
    buf.push(block.text);
    words += blockWordCount;
    endLine = block.endLine;
  }
  emit();
  if (!chunks.length) chunks.push({ ord: 0, heading: '', text: '', line: note.bodyStartLine, endLine: note.bodyStartLine });
  return chunks;
}

function samePath(a: string[], b: string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Up to `size` words (as `split(/\s+/)` delimits them) starting at a word: one match per piece of an oversized block. */
const wordRunPattern = (size: number) => new RegExp(`\\S+(?:\\s+\\S+){0,${size - 1}}`, 'g');
const RUN_CACHE = new Map<number, RegExp>();
/** A gap that is not exactly one space, which the piece's text must not keep. */
const UNEVEN_GAP = /\s\s|[^\S ]/;

/**
 * Consecutive runs of `size` words joined by single spaces: what `text.split(/\s+/)` sliced and re-joined gives,
 * without an array of every word (the regex walks the text natively; a run is only rewritten when its gaps are
 * not already single spaces).
 */
function wordRuns(text: string, size: number): string[] {
  let re = RUN_CACHE.get(size);
  if (!re) RUN_CACHE.set(size, (re = wordRunPattern(size)));
  const out: string[] = [];
  for (const run of text.match(re) ?? []) out.push(UNEVEN_GAP.test(run) ? run.replace(/\s+/g, ' ') : run);
  return out;
}
