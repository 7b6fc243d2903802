import type { Tier } from '../index/tiers';
import type { StaleInfo } from '../stale/types';
import type { ChannelHit } from './bm25';

export type RecallMode = 'hybrid' | 'bm25' | 'vector';

/** Per-candidate figures the search debugger and `--explain` show. */
export interface HitExplain {
  bm25?: { rank: number; score: number };
  vector?: { rank: number; cosine: number };
  fused?: number;
  boost?: number;
  /** Set when the vector channel's best document was lifted to this rank (fusion.ts `lift`). */
  lifted?: number;
  /** The factor a stale note's score was multiplied by (STALE_FACTOR), when it was demoted. */
  staleFactor?: number;
}

export interface RecallHit {
  path: string;
  title: string;
  tier: Tier;
  score: number;
  snippet: string;
  heading: string;
  line: number;
  linksIn: number;
  linksOut: number;
  superseded: boolean;
  /** Set on a template note (vault/templateNotes.ts): demoted like a superseded one. */
  template?: true;
  /**
   * Set when code the note is anchored to changed or vanished since the note was last true (issue #18): the
   * reason, the base it was true at, and each stale anchor. Absent for fresh notes and where staleness is off.
   */
  stale?: StaleInfo;
  explain: HitExplain;
  /** Full Markdown, when asked for. */
  markdown?: string;
}

export interface RecallResult {
  query: string;
  mode: RecallMode;
  /** The mode that actually answered (hybrid falls back to bm25 while vectors are unavailable). */
  effectiveMode: RecallMode;
  hits: RecallHit[];
  warnings: string[];
  /** Chunks still waiting for vectors. */
  pendingVectors?: number;
  /** How much of the vault the vector channel covered for this answer (passages with a vector / all passages). */
  coverage?: VectorCoverage;
  /**
   * effectiveMode as a person should read it: "hybrid (partial: 41 % of passages)" while vectors are missing,
   * so an answer over a mostly empty vector index never just says "hybrid".
   */
  effectiveModeLabel: string;
  tookMs: number;
}

export interface VectorCoverage {
  embedded: number;
  passages: number;
}

/** A candidate after fusion, before it is dressed up as a RecallHit. */
export interface RankedDoc {
  docId: number;
  chunkId: number;
  score: number;
  explain: HitExplain;
}

/**
 * The vector channel, attached to a project by whoever can embed (CLI/MCP with a time budget, the extension with
 * its worker). Absent → hybrid recall answers from BM25 and says so.
 */
export interface VectorChannel {
  search(query: string, pool: number): Promise<ChannelHit[]>;
  pending(): number;
  /** Passages with a vector and all passages, from what the store holds in memory (no query: it runs per recall). */
  coverage?(): VectorCoverage;
  /** The relevance floor of this channel's model (floor.ts): vector-only hits below it are dropped. */
  floor?: number;
  /** Combines the channels for `hybrid` mode; owned by the fusion module. */
  fuse(lexical: ChannelHit[], vector: ChannelHit[], opts: { limit: number; pool: number }): RankedDoc[];
}
