import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { isK0Error, K0Error } from '../errors';
import { locateVault, readConfig, type K0Config, type VaultPaths } from '../vault/paths';
import { parseUnifiedDiff } from './diffParser';
import { branchChanges, git, repoRoot, stagedChanges, wholeFiles, worktreeChanges } from './diffSource';
import { unmatchedScopes as unmatchedScopesOf } from './scopeFiles';
import { prepareRules, runRules, type ContentProvider } from './engine';
import { ruleCounts } from './ruleCounts';
import { loadVaultRules, type RuleCacheDb } from './ruleStore';
import { noteSources, type NoteSource } from '../vault/noteSources';
import { readRegularFile } from '../vault/regularFile';
import type { AdrRules, ChangedFile, GuardDiagnostic, GuardResult, GuardRule, Violation } from './types';
import { projectMatches } from './project';
import { checkRequestPaths, isInside } from './confine';
import { applyInferredPolicy, vaultInferredSetting } from './inferredPolicy';
import { recoverIfPending } from '../flush/pending';
import { throwIfCancelled, untilCancelled } from '../host/cancel';

export interface GuardCheckOptions {
  /** Unified diff text to audit. */
  diff?: string;
  /** `git diff --cached` (what the next commit adds). */
  staged?: boolean;
  /** Base branch: merge-base(branch, HEAD) → working tree, plus untracked files. */
  branch?: string;
  /** Whole files (relative to cwd or absolute). */
  files?: string[];
  /** Warnings block too. */
  strict?: boolean;
  /** Only ADRs whose frontmatter `project` matches (or that name no project). */
  project?: string;
  /** The git repository to audit; defaults to cwd. */
  repoPath?: string;
  /** Refuse a `repoPath` or `files` outside this folder with PATH_OUTSIDE_VAULT (the MCP tool passes the project). */
  confineTo?: string;
  cwd?: string;
  vault?: string;
  env?: NodeJS.ProcessEnv;
  /** Preloaded ADR rules (tests, the editor's live model); skips reading the vault. */
  adrs?: AdrRules[];
  /**
   * The index database for the compiled-rule cache (hosts that keep the project open pass `project.index`).
   * Omitted = parse ADRs directly, unless K0MARU_GUARD_CACHE=1 asks to open `.k0maru/index.db` (measured slower
   * for a one-shot process: see docs/guard.md).
   */
  cache?: RuleCacheDb | null;
  /** The caller withdrew (an MCP cancellation): checked between steps (repository, rules, diff); the check then ends with CANCELLED. */
  signal?: AbortSignal;
}

/** The use case behind `k0maru guard`, both hooks, the `guard_check` MCP tool and the editor command. */
export async function guardCheck(opts: GuardCheckOptions = {}): Promise<GuardResult> {
  // hrtime, not performance.now(): the first touch of `performance` loads Node's perf_hooks internals (~4 ms of a hook).
  const t0 = process.hrtime.bigint();
  const elapsedMs = () => Number(process.hrtime.bigint() - t0) / 1e6;
  const cwd = resolve(opts.cwd ?? process.cwd());
  const base = resolve(cwd, opts.repoPath ?? '.');
  checkRequestPaths({ cwd, repoPath: opts.repoPath, files: opts.files, confineTo: opts.confineTo });
  const source: GuardResult['source'] = opts.diff !== undefined ? 'diff' : opts.staged ? 'staged' : opts.branch ? 'branch' : opts.files?.length ? 'files' : 'worktree';

  let root = base;
  if (source !== 'diff' && source !== 'files') root = await repoRoot(base);
  else root = await repoRoot(base).catch(() => base); // a diff or files can be audited outside a repository
  throwIfCancelled(opts.signal, 'guard check');

  let paths: VaultPaths | undefined;
  try {
    paths = locateVault({ vault: opts.vault, cwd: root, env: opts.env });
  } catch (err) {
    // No vault means no decisions to enforce (a hook in a repo that never ran `k0maru init`), unless one was named.
    const missing = isK0Error(err) && err.code === 'VAULT_NOT_FOUND' && !opts.vault;
    if (!missing && !opts.adrs) throw err;
  }

  // git runs in its own process while this one loads the rules.
  let pending: Promise<ChangedFile[]>;
  if (source === 'diff') pending = Promise.resolve(parseUnifiedDiff(opts.diff ?? ''));
  else if (source === 'staged') pending = stagedChanges(root, opts.signal);
  else if (source === 'branch') pending = branchChanges(root, opts.branch!, opts.signal);
  else if (source === 'files') pending = Promise.resolve().then(() => wholeFiles(root, opts.files!, cwd));
  else pending = worktreeChanges(root, opts.signal); // a cancel kills git, not only stops waiting for it
  pending.catch(() => {}); // awaited below; avoid an unhandled rejection while rules load

  const trace = (opts.env ?? process.env).K0MARU_GUARD_TRACE ? (what: string) => process.stderr.write(`guard: ${what} at ${elapsedMs().toFixed(1)} ms\n`) : () => {};
  trace('start');
  const openIndex = (opts.env ?? process.env).K0MARU_GUARD_CACHE === '1';
  // A flush killed between writing a new ADR and marking the old one superseded is finished first (flush/recover.ts).
  if (paths && !opts.adrs) await recoverIfPending(paths, (_l, msg) => process.stderr.write(`k0maru: ${msg}\n`));
  // The config and the note sources, read once for the rule load, the inferred setting and the skipped folders.
  const config = paths ? readConfig(paths.k0Dir) : undefined;
  const sources = paths ? noteSources(paths, config) : [];
  throwIfCancelled(opts.signal, 'guard check');
  const adrs = opts.adrs ?? (paths ? await loadRules(paths, opts.cache ?? (openIndex ? undefined : null), { config, sources }) : []);
  trace(`rules loaded (${adrs.length} ADRs)`);
  const active = adrs.filter((a) => a.active && projectMatches(a, opts.project));
  const rules: GuardRule[] = applyInferredPolicy(active.flatMap((a) => a.rules), vaultInferredSetting(paths, config));
  // A typo'd scope, or one whose code moved or was deleted, silently disables its rules: said in every check, at
  // the cost of one `git ls-files` beside the diff, only when some active rule has an include glob and the cache
  // (HEAD + index stamp) does not already know every scope matches. A diagnostic, never a violation.
  const scopeDiags = unmatchedScopes(root, rules, paths, opts.signal);
  const files = await untilCancelled(pending, opts.signal, 'guard check');
  trace(`diff ready (${files.length} files)`);

  const skip = paths ? vaultPrefixes(root, paths, sources) : [];
  const checked = files.filter((f) => !f.binary && f.status !== 'deleted' && f.added.length && !skip.some((p) => f.path === p.slice(0, -1) || f.path.startsWith(p)));
  const content = contentProvider(root, source);
  const violations = withoutShadowedInferred(await runRules(checked, prepareRules(rules), content));
  trace('rules run');
  const errors = violations.filter((v) => v.severity === 'error').length;
  const strict = !!opts.strict;
  return {
    ok: errors === 0 && (!strict || violations.length === 0),
    strict,
    violations,
    diagnostics: [...active.flatMap((a) => a.diagnostics), ...(await scopeDiags)],
    stats: {
      rules: rules.length,
      // The one count (ruleCounts.ts) the editor's log and Architecture view say too.
      adrs: ruleCounts(active).adrs,
      inactiveAdrs: ruleCounts(adrs).inactiveAdrs,
      files: checked.length,
      addedLines: checked.reduce((n, f) => n + f.added.length, 0),
      ms: elapsedMs(),
    },
    source,
  };
}

/** `rule.scope-matches-nothing` against the tracked and untracked-unignored files (scopeFiles.ts, cached by HEAD + index); no repository → none. */
async function unmatchedScopes(root: string, rules: GuardRule[], paths: VaultPaths | undefined, signal?: AbortSignal): Promise<GuardDiagnostic[]> {
  try {
    return (await unmatchedScopesOf(root, rules, { cacheDir: paths && join(paths.k0Dir, 'cache'), signal })).diagnostics;
  } catch {
    return [];
  }
}

/** The vault, the project's ADR folders and `.k0maru/` are never audited: ADRs quote the very code they forbid. */
function vaultPrefixes(root: string, paths: VaultPaths, sources: NoteSource[]): string[] {
  const out: string[] = [];
  for (const dir of [paths.k0Dir, ...sources.map((s) => s.root)]) {
    const rel = relative(root, dir).split('\\').join('/');
    if (rel && !rel.startsWith('..')) out.push(rel + '/');
  }
  return out;
}

async function loadRules(paths: VaultPaths, cache: RuleCacheDb | null | undefined, read: { config?: K0Config; sources: NoteSource[] }): Promise<AdrRules[]> {
  if (!existsSync(paths.notesRoot)) return [];
  if (cache !== undefined) return (await loadVaultRules(paths, cache, read)).adrs;
  const db = await openCache(paths);
  try {
    return (await loadVaultRules(paths, db, read)).adrs;
  } finally {
    db?.close();
  }
}

/**
 * Opens the index for the rule cache unless another process holds its lock: a hook must answer in milliseconds,
 * so it parses the ADRs itself rather than wait for a scan to finish.
 */
async function openCache(paths: VaultPaths): Promise<(RuleCacheDb & { close(): void }) | null> {
  if (existsSync(`${paths.indexPath}.lock`)) return null;
  try {
    // A dynamic import: the bundle puts SQLite in its own chunk, which the default hook path never loads.
    const { IndexDb } = await import('../index/db');
    return IndexDb.open(paths.indexPath) as unknown as RuleCacheDb & { close(): void };
  } catch {
    return null;
  }
}

/**
 * New-file text for the syntax classifier and `require` windows: the file on disk when its lines agree with the
 * diff's added lines (true for the working tree, branch and file sources, and for staged files not edited since
 * `git add`); otherwise the diff's own new-side lines, with lines outside the hunks left blank so line numbers
 * still line up.
 */
function contentProvider(root: string, source: GuardResult['source']): ContentProvider {
  const cache = new Map<string, string[]>();
  return (file) => {
    let lines = cache.get(file.path);
    if (lines) return lines;
    if (source === 'files') lines = fromHunks(file);
    else lines = fromDisk(root, join(root, file.path), file) ?? fromHunks(file);
    cache.set(file.path, lines);
    return lines;
  };
}

/** A file larger than this is not read for its text (the diff's own lines are used). */
const MAX_DISK_BYTES = 4 * 1024 * 1024;

function fromDisk(root: string, abs: string, file: ChangedFile): string[] | undefined {
  try {
    // A diff can name `../../etc/passwd`, a tracked symlink can lead anywhere: only the project's files are read.
    if (!isInside(root, abs)) return undefined;
    // One open + fstat, no stat before it; never blocks on a FIFO a tracked symlink leads to.
    const buf = readRegularFile(abs, MAX_DISK_BYTES + 1);
    if (buf.length > MAX_DISK_BYTES) return undefined;
    const lines = buf.toString('utf8').replace(/^\uFEFF/, '').split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
    for (const a of file.added) if (lines[a.line - 1] !== a.text) return undefined;
    return lines;
  } catch {
    return undefined;
  }
}

function fromHunks(file: ChangedFile): string[] {
  let max = 0;
  for (const n of file.newSideLines.keys()) if (n > max) max = n;
  const lines = new Array<string>(max).fill('');
  for (const [n, t] of file.newSideLines) lines[n - 1] = t;
  return lines;
}

/**
 * An inferred rule restates, in its sentence, what its ADR often also writes as an explicit rule (a prose
 * "never call `http.Get`" beside `deny: /http\.(Get|Post)\(/`). The pattern-level dedupe cannot see that a regex
 * covers a literal, so a line an explicit rule of the same ADR already reports is not reported again as advisory.
 */
export function withoutShadowedInferred(violations: Violation[]): Violation[] {
  const explicit = new Set(violations.filter((v) => !v.inferred).map((v) => `${v.adrPath}\0${v.path}\0${v.line}`));
  return violations.filter((v) => !v.inferred || !explicit.has(`${v.adrPath}\0${v.path}\0${v.line}`));
}
