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

/**
 * The title as an Obsidian-style file name: case and spaces kept; path separators and the characters Obsidian
 * refuses in names (`* " \ / < > : | ? # ^ [ ]`) and control characters dropped; no leading dots (no hidden files,
 * no `..`), no trailing dots or spaces (Windows).
 */
export function titleFileName(title: string): string {
  let name = title
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f*"\\/<>:|?#^[\]]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[.\s]+/, '')
    .replace(/[.\s]+$/, '');
  name = Array.from(name).slice(0, 100).join('').trim();
  if (!name) name = 'Untitled';
  if (WINDOWS_RESERVED.test(name)) name += ' note';
  return name;
}
