// Frozen copy of the parse/chunk code as of commit 5809ead (before the parse-speed work of issue 17): the reference
// test/unit/core/parseEquivalence.test.ts compares the live code against. Do not optimise or "fix" this copy.
import type { ParsedNote } from './markdown';
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

  for (const block of note.blocks) {
    const blockHeading = block.headingPath.filter(Boolean).join(' > ');
    if (block.kind === 'heading' || blockHeading !== heading) {
      emit();
      heading = blockHeading;
      if (block.kind === 'heading') continue;
    }
    const blockWordCount = countWords(block.text);
    if (!blockWordCount) continue;
    if (words + blockWordCount > targetWords && words > 0) emit();
    if (blockWordCount > targetWords * 1.5) {
      const blockWords = block.text.split(/\s+/).filter(Boolean);
      for (let i = 0; i < blockWords.length; i += targetWords) {
        buf = [blockWords.slice(i, i + targetWords).join(' ')];
        line = block.line;
        endLine = block.endLine;
        words = Math.min(targetWords, blockWords.length - i);
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
