/** One public types file for the guard: rules, diagnostics, added lines, violations and the check result. */

export type RuleKind = 'deny' | 'warn' | 'require';

/** Where in the source a match counts: code (and string literals, by default), or anywhere incl. comments. */
export type MatchContext = 'code' | 'code-strict' | 'anywhere';

/** Window in which a `require` rule's companion pattern must appear, relative to the trigger match. */
export type RequireWindow =
  | { kind: 'statement' }
  | { kind: 'line' }
  | { kind: 'above'; lines: number }
  | { kind: 'below'; lines: number }
  | { kind: 'around'; lines: number }
  | { kind: 'file' };

export interface PatternSpec {
  /** `literal` is matched with indexOf, `regex` with RE2 (linear time). */
  type: 'literal' | 'regex';
  source: string;
  ignoreCase: boolean;
}

/** A rule compiled from one list item of an ADR's `## Invariants` / `## Rules` / `## Guard` section. */
export interface GuardRule {
  /** Explicit `id:` or `<ADR-ID>#<n>` (n = 1-based rule position in the ADR). */
  id: string;
  kind: RuleKind;
  /** For deny/warn: the forbidden pattern. For require: the companion that must be present. */
  pattern: PatternSpec;
  /** For require: the trigger ("whenever this is added ..."). */
  when?: PatternSpec;
  window?: RequireWindow;
  include: string[];
  exclude: string[];
  /**
   * Include globs of the wider levels the rule sits under (its list's `- scope:`, the section's `Applies to:`
   * line), innermost first: a file must also match one glob of every set. Scopes nest and only ever narrow.
   */
  within?: string[][];
  /** Where each include/exclude came from (the ADR line of the `in:`, `- scope:` or `Applies to:`). */
  scopes?: ScopeOrigin[];
  /** Canonical language ids (see languages.ts); empty = all. */
  langs: string[];
  context: MatchContext;
  /**
   * True when the ADR chose the context (`anywhere`, `no-strings`, `code-only`, `context:`). Otherwise the engine
   * decides: a call-shaped pattern (`name(`, `a.b(`) does not count inside string literals (engine.ts).
   */
  contextExplicit?: boolean;
  remediation?: string;
  /** The rule text as written after the list marker, for reports (`deny: SELECT * FROM`). */
  text: string;
  adrId: string;
  adrPath: string;
  adrTitle: string;
  /** 1-based line of the rule in the ADR file. */
  line: number;
  /** Absent = explicit (written in the rule language); `inferred` = read from a prose decision (inferred.ts). */
  origin?: 'explicit' | 'inferred';
  /** Inferred rules: the decision sentence the rule was read from (as written, code spans included). */
  sentence?: string;
  /** Inferred rules: the ADR's own `guard-inferred:` frontmatter setting, which wins over the vault's. */
  adrSetting?: InferredSetting;
  /** Set at check time for inferred rules (from the ADR / vault setting); otherwise derived from `kind`. */
  severity?: 'error' | 'warning';
}

/** One declared scope of a rule: as written, what it expands to, and where it was declared. */
export interface ScopeOrigin {
  level: 'rule' | 'list' | 'section';
  polarity: 'include' | 'exclude';
  written: string;
  globs: string[];
  line: number;
}

/** How inferred rules apply: `warn` (advisory, the default), `block` (like deny) or `off` (not checked). */
export type InferredSetting = 'warn' | 'block' | 'off';

export interface GuardDiagnostic {
  code: 'rule.unknown-kind' | 'rule.empty-pattern' | 'rule.bad-regex' | 'rule.bad-modifier' | 'rule.missing-when' | 'rule.unterminated'
    | 'rule.ambiguous' | 'rule.bad-setting' | 'rule.contradictory-scope' | 'rule.scope-unclear' | 'rule.scope-matches-nothing'
    | 'rule.in-example';
  message: string;
  adrPath: string;
  line: number;
  /** From prose inference (advice about a sentence, not a broken rule): the editor shows it as information. */
  inferred?: boolean;
}

export interface AdrRules {
  adrId: string;
  adrPath: string;
  title: string;
  status?: string;
  /** Frontmatter `project`, for the MCP tool's project filter. */
  project?: string;
  /** False for superseded / deprecated / rejected ADRs: their rules never apply. */
  active: boolean;
  rules: GuardRule[];
  diagnostics: GuardDiagnostic[];
}

/** A file of a diff with the lines it adds (new-file numbering). */
export interface ChangedFile {
  path: string;
  oldPath?: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'mode';
  binary: boolean;
  added: AddedLine[];
  /** Hunk lines of the new side (context + added), used when the file cannot be read from disk. */
  newSideLines: Map<number, string>;
}

export interface AddedLine {
  /** 1-based line number in the new file. */
  line: number;
  text: string;
}

export interface Violation {
  ruleId: string;
  kind: RuleKind;
  /** `error` blocks; `warning` is advisory unless strict mode is on. */
  severity: 'error' | 'warning';
  path: string;
  line: number;
  column: number;
  match: string;
  rule: string;
  remediation?: string;
  adrId: string;
  adrPath: string;
  /** Where the match sits: code, string or comment (tree-sitter or the lexical heuristic). */
  context: 'code' | 'string' | 'comment';
  /** True when the rule was inferred from a prose decision (then `sentence` and `adrLine` say where). */
  inferred: boolean;
  sentence?: string;
  adrLine?: number;
}

export interface GuardResult {
  ok: boolean;
  strict: boolean;
  violations: Violation[];
  diagnostics: GuardDiagnostic[];
  stats: { rules: number; adrs: number; inactiveAdrs: number; files: number; addedLines: number; ms: number };
  source: 'diff' | 'staged' | 'worktree' | 'branch' | 'files';
}
