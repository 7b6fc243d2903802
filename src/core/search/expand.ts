import { queryTokens } from './ftsQuery';
import { blendPasses, type LexicalSearch } from './prf';

/**
 * Query expansion from a lexical resource (WordNet, measured in bench/quality/paraphrase.ts with `--wordnet DIR`):
 * the synonyms of the query's own words make a second BM25 query, blended below the original on normalised
 * scores (prf.ts's blendPasses). Only query words are expanded, only with single words, and a query the first
 * pass finds nothing for gets nothing (no synonym invents a match for nonsense).
 */
export type SynonymLookup = (word: string) => string[];

export interface ExpandOptions {
  /** Synonyms kept per query word (the resource's most common senses first). */
  perWord: number;
  /** Share of the synonym pass in the blended score, in [0, 1). */
  weight: number;
}

export function withSynonyms(base: LexicalSearch, lookup: SynonymLookup, opts: ExpandOptions): LexicalSearch {
  return (idx, query, pool) => {
    const first = base(idx, query, pool);
    if (!first.length) return first;
    const own = new Set(queryTokens(query));
    const extra = new Set<string>();
    for (const w of own) for (const s of lookup(w).filter((s) => !own.has(s)).slice(0, opts.perWord)) extra.add(s);
    if (!extra.size) return first;
    return blendPasses(first, base(idx, [...extra].join(' '), pool), opts.weight, pool);
  };
}
