/**
 * Counts whitespace-separated words without allocating (the chunker calls this for every block); with `stopAt`,
 * stops counting once that many words are seen (the chunker only needs to know a block is oversized).
 */
export function countWords(text: string, stopAt = Infinity): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const space = c === 32 || c === 10 || c === 9 || c === 13;
    if (!space && !inWord && ++n >= stopAt) return n;
    inWord = !space;
  }
  return n;
}
