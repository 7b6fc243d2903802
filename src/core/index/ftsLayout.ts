/**
 * The layout of `chunks_fts`, and how bm25 keeps its length normalisation without reading a size record per row.
 *
 * FTS5's bm25 reads every matching row's token count from `chunks_fts_docsize` — one b-tree lookup per match, which
 * was ~2/3 of what a query spent per match (issue #17). With `columnsize=0` there is no such table and FTS5 uses
 * D = −(number of columns) for every row, i.e. one constant length normalisation L0 = 1 − b + b·D0/avgdl instead
 * of each row's L = 1 − b + b·D/avgdl. bm25's term score is f(k1+1)/(f + k1·L) for a weighted frequency f; scaling
 * f by L0/L gives (f·L0/L)(k1+1)/(f·L0/L + k1·L0) = f(k1+1)/(f + k1·L) — the row's own normalisation, exactly.
 * FTS5 weights are per column, not per row, so each chunk's text goes into the columns of its length bucket
 * (title, heading and body of bucket k) and a query weights bucket k's columns by L0/L_k (bm25.ts). The only
 * difference from bm25 with sizes is the rounding of a row's length to its bucket's (±~17 %, see LENGTH_BOUNDS).
 */
export const FIELDS = ['title', 'heading', 'body'] as const;
export type Field = (typeof FIELDS)[number];

/**
 * Lower bounds (tokens in the whole row) of the length buckets, ratio ~1.2 from 4 to ~400: a row's length is taken
 * as the geometric middle of its bucket (within ±10 %). The last bucket is open-ended (chunks are cut at ~150
 * words; a longer row is a code block or a table).
 */
export const LENGTH_BOUNDS: readonly number[] = (() => {
  const out = [0];
  for (let x = 4; x < 400; x *= 1.2) if (Math.round(x) > out[out.length - 1]) out.push(Math.round(x));
  return out;
})();

/** Representative length of each bucket (what bm25 treats every row in it as). */
export const BUCKET_LENGTH = LENGTH_BOUNDS.map((lo, k) => {
  const hi = LENGTH_BOUNDS[k + 1];
  if (hi === undefined) return lo * 1.2;
  return lo === 0 ? hi / 2 : Math.sqrt(lo * hi);
});

export const BUCKETS = LENGTH_BOUNDS.length;

/** Column name of a field in a bucket: title0 … body12. */
export const column = (field: Field, bucket: number): string => `${field}${bucket}`;

/** Every column in table order: all titles, then all headings, then all bodies. */
export const COLUMNS: string[] = FIELDS.flatMap((f) => LENGTH_BOUNDS.map((_, k) => column(f, k)));

export function bucketOf(tokens: number): number {
  let k = 0;
  while (k + 1 < BUCKETS && tokens >= LENGTH_BOUNDS[k + 1]) k++;
  return k;
}

/** A code point FTS5's unicode61 keeps in a token: a letter, a digit or a private-use character. */
const TOKEN_CHAR = /^[\p{L}\p{N}\p{Co}]$/u;
/** Per BMP code unit: 0 not yet classified, 1 token character, 2 separator. ASCII is filled in up front. */
const BMP_CLASS = new Uint8Array(0x10000);
for (let c = 0; c < 128; c++) BMP_CLASS[c] = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) ? 1 : 2;

function isTokenChar(cp: number): boolean {
  if (cp < 0x10000) {
    let k = BMP_CLASS[cp];
    if (k === 0) BMP_CLASS[cp] = k = TOKEN_CHAR.test(String.fromCharCode(cp)) ? 1 : 2;
    return k === 1;
  }
  return TOKEN_CHAR.test(String.fromCodePoint(cp));
}

/**
 * Tokens as FTS5's unicode61 counts them: runs of letters, digits and private-use characters — what
 * `/[\p{L}\p{N}\p{Co}]+/gu` matches, counted without a match object per token (the regex loop was ~9 % of a
 * cold index, issue #17). A lone surrogate is a separator, as it is to the regex.
 */
export function tokenCount(text: string): number {
  let n = 0;
  let inRun = false;
  const len = text.length;
  for (let i = 0; i < len; i++) {
    const c = text.charCodeAt(i);
    let word: boolean;
    if (c < 0xd800) word = isTokenChar(c);
    else if (c <= 0xdbff && i + 1 < len && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      word = isTokenChar(((c - 0xd800) << 10) + (text.charCodeAt(i + 1) - 0xdc00) + 0x10000);
      i++;
    } else word = c > 0xdfff && isTokenChar(c); // a lone surrogate is a separator
    if (word && !inRun) n++;
    inRun = word;
  }
  return n;
}

/**
 * `SELECT` expressions giving each FTS column its value for a row of `chunks c JOIN documents d`: the chunk's
 * title, heading and text land in the columns of its bucket, every other column is NULL.
 */
export function ftsValuesSql(bucketExpr: string, source: Record<Field, string>): string {
  return FIELDS.flatMap((f) => LENGTH_BOUNDS.map((_, k) => `CASE WHEN ${bucketExpr} = ${k} THEN ${source[f]} END`)).join(', ');
}
