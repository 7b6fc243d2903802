import { searchBm25 } from './bm25';
import type { LexicalSearch } from './prf';

export type { LexicalSearch } from './prf';

/**
 * The lexical channel hybrid recall fuses with the vector channel (recall.ts); `bm25` mode always uses plain
 * searchBm25. Measured by bench/quality/paraphrase.ts on 106 graded queries (docs/embeddings.md, "Paraphrase
 * channel"): no candidate (PRF, chunk aggregation, field weights, WordNet synonyms, adaptive blend) chosen on the
 * tune half stayed ≥ BM25 on every query type of the test half while lifting paraphrase recall over today's
 * default, so the channel stays plain BM25. The candidates stay in prf.ts / paraphraseFields.ts / expand.ts,
 * selectable through `recall(…, { lexical })`.
 */
export const HYBRID_LEXICAL: LexicalSearch = searchBm25;
