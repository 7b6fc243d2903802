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
    const blockWordCount = countWords(block.text);
    if (!blockWordCount) continue;
    if (words + blockWordCount > targetWords && words > 0) emit();
    if (blockWordCount > targetWords * 1.5) {
      for (const piece of wordRuns(block.text, targetWords)) {
        buf = [piece.text];
        line = block.line;
        endLine = block.endLine;
        words = piece.words;
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

/** What `/\s/` matches (ECMAScript WhiteSpace and LineTerminator), so cuts fall where `split(/\s+/)` put them. */
function isJsSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f ||
    c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

/**
 * Consecutive runs of `size` words joined by single spaces: what `text.split(/\s+/)` sliced and re-joined gives,
 * without an array of every word. A run is sliced from the text as it is and only rewritten when its gaps are not
 * already single spaces.
 */
function wordRuns(text: string, size: number): { text: string; words: number }[] {
  const out: { text: string; words: number }[] = [];
  let runStart = -1;
  let runWords = 0;
  let plain = true; // every gap inside the current run is one ' '
  let i = 0;
  let wordEnd = 0;
  const n = text.length;
  while (i < n) {
    const gapStart = i;
    while (i < n && isJsSpace(text.charCodeAt(i))) i++;
    if (i >= n) break;
    if (runWords > 0 && (i - gapStart !== 1 || text.charCodeAt(gapStart) !== 32)) plain = false;
    if (runWords === 0) runStart = i;
    while (i < n && !isJsSpace(text.charCodeAt(i))) i++;
    wordEnd = i;
    runWords++;
    if (runWords === size) {
      const raw = text.slice(runStart, i);
      out.push({ text: plain ? raw : raw.replace(/\s+/g, ' '), words: runWords });
      runWords = 0;
      plain = true;
    }
  }
  if (runWords > 0) {
    const raw = text.slice(runStart, wordEnd);
    out.push({ text: plain ? raw : raw.replace(/\s+/g, ' '), words: runWords });
  }
  return out;
}
