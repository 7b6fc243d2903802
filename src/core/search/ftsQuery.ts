/**
 * Turns free text into an FTS5 MATCH expression that can never be a syntax error: every token is quoted, so
 * FTS5 operators and punctuation in the query (`Option<&mut T>`, `"unbalanced`, `a AND`, `E0502`) are plain text.
 * A term that the tokenizer would split (`SQLITE_BUSY`, `lock:payment`) becomes a phrase, so exact symbols match
 * as a unit while their parts still match elsewhere. Terms are OR-ed; bm25 rewards documents matching more.
 */
const STOPWORDS = new Set(
  'a an and are as at be but by can did do does for from had has have how i if in into is it its of on or our should so that the their them then there these they this to was we were what when where which who why will with would you your about after before did does done any all'.split(' '),
);

/** Same split as SQLite's unicode61 tokenizer: runs of letters and digits. */
export function tokenize(text: string): string[] {
  return text.toLowerCase().normalize('NFKD').replace(/\p{M}/gu, '').match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The quoted FTS5 phrases of a query, stopwords dropped unless nothing else is left, duplicates removed. Each one is
 * a complete, valid FTS5 expression on its own, so the BM25 channel can combine them (OR, AND, column filters).
 */
export function ftsPhrases(query: string): string[] {
  const terms = query.split(/\s+/).filter(Boolean);
  const clauses: string[] = [];
  const fallback: string[] = [];
  for (const term of terms) {
    const toks = tokenize(term);
    if (!toks.length) continue;
    const clause = toks.length === 1 ? `"${toks[0]}"` : `"${toks.join(' ')}"`;
    fallback.push(clause);
    if (toks.length === 1 && STOPWORDS.has(toks[0])) continue;
    clauses.push(clause);
  }
  return [...new Set(clauses.length ? clauses : fallback)];
}

export function buildFtsQuery(query: string): string | null {
  const phrases = ftsPhrases(query);
  return phrases.length ? phrases.join(' OR ') : null;
}

/** Query tokens worth highlighting in a snippet. */
export function queryTokens(query: string): string[] {
  const toks = tokenize(query).filter((t) => !STOPWORDS.has(t));
  return toks.length ? toks : tokenize(query);
}
