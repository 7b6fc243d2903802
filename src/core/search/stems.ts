import { stemmer } from 'stemmer';

/**
 * The Porter stem of one token, as the index's `porter` tokenizer reduces it (schema.ts): the code that asks
 * "does this text contain that query word?" outside FTS5 — the answer gate's note coverage, snippet placement —
 * must agree with what BM25 matched, or a note BM25 found on "charged" for "charging" reads as not containing it.
 * Both are Martin Porter's original algorithm; tokens with digits are left as they are, as FTS5 leaves them.
 */
export function stemOf(token: string): string {
  if (!/^\p{L}+$/u.test(token)) return token;
  let s = cache.get(token);
  if (s === undefined) {
    s = stemmer(token);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(token, s);
  }
  return s;
}

/** The distinct stems of a list of tokens. */
export function stemSet(tokens: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const t of tokens) out.add(stemOf(t));
  return out;
}

// A long-lived host (MCP server, editor) stems every note the gate reads: bounded, not growing with the vault.
const CACHE_LIMIT = 50_000;
const cache = new Map<string, string>();
