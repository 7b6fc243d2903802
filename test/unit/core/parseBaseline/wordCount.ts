// Frozen copy of the parse/chunk code as of commit 5809ead (before the parse-speed work of issue 17): the reference
// test/unit/core/parseEquivalence.test.ts compares the live code against. Do not optimise or "fix" this copy.
/** Counts whitespace-separated words without allocating (the chunker calls this for every block). */
export function countWords(text: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const space = c === 32 || c === 10 || c === 9 || c === 13;
    if (!space && !inWord) n++;
    inWord = !space;
  }
  return n;
}
