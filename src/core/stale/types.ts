/**
 * Stale memory (issue #18): notes anchored to the code they describe. This file is the contract the index, the
 * surfaces (recall, loadout, MCP, guard, editor, console) and the CLI share; the engine that fills it lives beside
 * it in this folder.
 *
 * An anchor is a reference from a note to the repository: a path (`src/db/pool.go`), a line range of a path
 * (`payments/webhook.ts:42`, `#L10-L20`), a symbol that resolves to exactly one definition (`acquireLock`), or an
 * explicit entry of the note's `anchors:` frontmatter list. Its base is the commit the note was last true at:
 * `verified_at: <commit>` in the frontmatter, else the last commit that changed the note.
 */

export type AnchorKind = 'path' | 'lines' | 'symbol';

export interface Anchor {
  kind: AnchorKind;
  /** Repository-relative path, '/' separators (for a symbol: the file that defines it at the base). */
  path: string;
  /** 1-based inclusive line range, for `lines` (and for `symbol`: the definition's range at the base). */
  startLine?: number;
  endLine?: number;
  symbol?: string;
  /** For a symbol written qualified (`Pool.acquire`): the definition it sits in. */
  container?: string;
  /** Where the note names it: its body text or its `anchors:` frontmatter list. */
  source: 'text' | 'frontmatter';
  /** The note line that names it (1-based), for diagnostics. */
  noteLine: number;
  /**
   * The path was not in the working tree when the note was read: it counts only when the note's base had it
   * (it was deleted or renamed since); otherwise it names a file that never existed and is ignored.
   */
  absent?: boolean;
  /**
   * For `lines` and `symbol`: the range at the last check, in the numbering of the tree checked then (edits above
   * move lines). An update after new commits compares from there, with one diff for every note fresh at that check.
   */
  current?: [number, number];
}

export interface StaleAnchor {
  /** The anchor as written in the note (`src/db/pool.go:42`, `acquireLock`). */
  anchor: string;
  path: string;
  /** This anchor's own reason, e.g. "`acquireLock` no longer exists (removed in def5678)". */
  reason: string;
  /** What happened to it (the engine carries these from one check to the next). */
  change?: 'changed' | 'deleted' | 'removed';
  /** Commits since the note's base that touched it (0: only uncommitted changes). */
  commits?: number;
}

/** What every surface shows for a stale note. `reason` + `since` are what MCP's structured content carries. */
export interface StaleInfo {
  /**
   * One sentence a person can act on, for the first stale anchor, plus "(+N more)" when there are others:
   * "`src/db/pool.go` changed in 3 commits since this note (last abc1234 2026-11-20 'switch to pgx')".
   */
  reason: string;
  /** The note's base, abbreviated (7+ hex): the commit it was last true at. */
  since: string;
  /** The base in full, for `git diff <base> -- <path>` ("Show changes since this note"). */
  base: string;
  anchors: StaleAnchor[];
}

/**
 * Whether staleness could be computed for this project. Off (said once, never a false "stale") outside a git
 * repository, without git, or with every base missing (a shallow clone); `unknown` counts notes whose base is
 * not in the local history.
 */
export type StalenessStatus = { enabled: true; head: string; unknown: number } | { enabled: false; reason: string };
