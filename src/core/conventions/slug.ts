/**
 * Turns a title into a file-name stem. Keeps letters and digits of every script (a Japanese title stays
 * readable) and replaces everything else — `/`, `\`, `.`, spaces, control characters — with `-`, so a title can
 * never name a path outside its folder (`../../x` → `x`).
 */
const MAX_SLUG = 80;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)$/i;

export function slugify(title: string): string {
  const cleaned = title
    .normalize('NFKC')
    .toLowerCase()
    .replace(/['’`]/g, '') // "don't" → "dont", not "don-t"
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  // Cut on code points, never inside a surrogate pair, then drop a dangling dash.
  let slug = Array.from(cleaned).slice(0, MAX_SLUG).join('').replace(/-+$/, '');
  if (!slug) slug = 'note';
  if (WINDOWS_RESERVED.test(slug)) slug += '-note';
  return slug;
}
