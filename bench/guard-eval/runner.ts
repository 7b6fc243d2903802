// Runs one guard evaluation case (format: bench/guard-eval/README.md) in a throw-away git repository with the
// real built CLI, and compares what it reports with what the case expects. No part of the guard is imported:
// the evaluation sees the guard only the way a user does, through `k0maru guard --staged --json` and the
// `k0maru hook pre-commit` exit code.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';

export type Kind = 'deny' | 'warn' | 'require';

export interface ExpectedFinding {
  path: string;
  line: number;
  /** One kind, or the kinds the issue text leaves open (e.g. a `(warning)` deny may print as deny or warn). */
  kind: Kind | Kind[];
  severity: 'error' | 'warning';
  inferred: boolean;
  adr: string;
  /** Optional: a text the finding's remediation must contain (case-insensitive), e.g. from a "use …" clause. */
  remediation?: string;
  /** Optional, inferred rules: the ADR line of the sentence the rule came from. */
  adr_line?: number;
}

export interface ExpectedDiagnostic {
  code?: string;
  adr: string;
  line?: number | number[];
}

/** A generated text (for the 10,000-line ADR): head + repeat × times + tail. */
export interface Generated {
  head?: string;
  repeat: string;
  times: number;
  tail?: string;
}

export type FileText = string | Generated;
export type ChangeEntry = FileText | null | { rename: string; content?: FileText };

export function textOf(v: FileText | undefined | null): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  return (v.head ?? '') + v.repeat.repeat(Math.max(0, Math.min(v.times, 1_000_000))) + (v.tail ?? '');
}

const isGenerated = (v: unknown): v is Generated => !!v && typeof v === 'object' && typeof (v as Generated).repeat === 'string';

export interface EvalCase {
  name: string;
  split: string;
  style: string;
  origin: string;
  note?: string;
  init?: boolean;
  files: Record<string, FileText>;
  change: Record<string, ChangeEntry>;
  binary?: string[];
  expect: ExpectedFinding[];
  expect_diagnostics?: ExpectedDiagnostic[];
  /** Paths outside the declared scope; `{ path, adr?, line? }` when only that ADR's scope (or that line's rule) excludes it. */
  out_of_scope?: Array<string | { path: string; adr?: string; line?: number }>;
}

/** A reported violation reduced to the fields the set compares; several matches on one line are one finding. */
export interface Finding {
  path: string;
  line: number;
  kind: Kind;
  severity: 'error' | 'warning';
  inferred: boolean;
  adrId: string;
  adrPath: string;
  rule: string;
  remediation: string;
  adrLine?: number;
}

export interface ReportedDiagnostic {
  code: string;
  adrPath: string;
  line: number;
  message: string;
}

export interface CaseResult {
  name: string;
  split: string;
  style: string;
  /** The CLI did not answer with exit 0/1 and valid JSON (a crash, a usage error, a timeout). */
  crashed: boolean;
  crashDetail?: string;
  reported: Finding[];
  tp: Array<{ expected: ExpectedFinding; found: Finding }>;
  fp: Finding[];
  fn: ExpectedFinding[];
  diagnostics: ReportedDiagnostic[];
  missingDiagnostics: ExpectedDiagnostic[];
  diagnosticsExpected: number;
  outsideScope: Finding[];
  hookExit: number | null;
  hookExpected: number;
  ms: number;
}

export function loadCase(file: string): EvalCase {
  const raw = parseYaml(readFileSync(file, 'utf8')) as Partial<EvalCase> | null;
  const name = basename(file).replace(/\.ya?ml$/, '');
  const split = basename(dirname(file));
  if (!raw || typeof raw !== 'object') throw new Error(`${file}: not a YAML mapping`);
  if (typeof raw.style !== 'string') throw new Error(`${file}: style missing`);
  if (!raw.files || typeof raw.files !== 'object') throw new Error(`${file}: files missing`);
  if (!Array.isArray(raw.expect)) throw new Error(`${file}: expect must be a list (use [] for none)`);
  for (const e of raw.expect) {
    if (typeof e.path !== 'string' || typeof e.line !== 'number' || !e.kind || !e.severity || typeof e.inferred !== 'boolean' || typeof e.adr !== 'string')
      throw new Error(`${file}: every expected finding needs path, line, kind, severity, inferred, adr`);
  }
  return { name, split, origin: '', change: {}, ...raw, style: raw.style, files: raw.files, expect: raw.expect } as EvalCase;
}

const IDENTITY = { GIT_AUTHOR_NAME: 'eval', GIT_AUTHOR_EMAIL: 'eval@example.invalid', GIT_COMMITTER_NAME: 'eval', GIT_COMMITTER_EMAIL: 'eval@example.invalid' };

/** The caller's environment without git's and k0maru's own variables: run from a git hook (GIT_DIR,
 *  GIT_INDEX_FILE) or with K0MARU_* settings, the case would otherwise check another repository or behave
 *  differently from a user's plain commit. The global and system git config are left out too (hermetic cases). */
function caseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(GIT_|K0MARU_)/.test(k)) env[k] = v;
  return { ...env, ...IDENTITY, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
}

/** Bytes git treats as binary (a NUL in the first 8000 bytes), derived from the case's text so changes differ. */
function binaryBytes(text: string): Buffer {
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]), Buffer.from(text, 'utf8'), Buffer.from([0x00, 0xff])]);
}

function writeRel(root: string, rel: string, text: string, binary: boolean): void {
  const abs = join(root, rel);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, binary ? binaryBytes(text) : text);
}

/** Builds the repository: `files` committed, then `change` applied and staged with `git add -A`. */
export function buildRepo(c: EvalCase, cli: string): string {
  const root = mkdtempSync(join(tmpdir(), 'k0guard-eval-'));
  const env = caseEnv();
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  git('init', '-q', '-b', 'main');
  git('config', 'commit.gpgsign', 'false');
  git('config', 'core.autocrlf', 'false');
  const bin = new Set(c.binary ?? []);
  // With `init` the case tests `k0maru init` in a repository as the user has it: no vault yet.
  if (!c.init) mkdirSync(join(root, '.k0maru', 'wiki'), { recursive: true });
  writeFileSync(join(root, '.gitignore'), '.k0maru/index.db*\n.k0maru/*.lock\n');
  for (const [rel, text] of Object.entries(c.files)) writeRel(root, rel, textOf(text), bin.has(rel));
  if (c.init) {
    const r = spawnSync(process.execPath, [cli, 'init'], { cwd: root, env, encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`k0maru init failed (${r.status}): ${r.stderr || r.stdout}`);
  }
  git('add', '-A');
  git('commit', '-q', '--no-verify', '--allow-empty', '-m', 'initial');
  const entries = Object.entries(c.change ?? {});
  // Deletions and renames first, so a rename's old path is still there and a later write can reuse a path.
  for (const [rel, v] of entries) {
    if (v === null) git('rm', '-q', '--', rel);
    else if (typeof v === 'object' && !isGenerated(v)) {
      mkdirSync(dirname(join(root, rel)), { recursive: true });
      git('mv', '--', v.rename, rel);
      if (v.content !== undefined) writeRel(root, rel, textOf(v.content), bin.has(rel));
    }
  }
  for (const [rel, v] of entries) if (typeof v === 'string' || isGenerated(v)) writeRel(root, rel, textOf(v), bin.has(rel));
  git('add', '-A');
  return root;
}

function toFinding(v: Record<string, unknown>): Finding {
  const inferred = v.inferred === true || v.origin === 'inferred';
  return {
    path: String(v.path),
    line: Number(v.line),
    kind: String(v.kind) as Kind,
    severity: v.severity === 'warning' ? 'warning' : 'error',
    inferred,
    adrId: String(v.adrId ?? ''),
    adrPath: String(v.adrPath ?? ''),
    rule: String(v.rule ?? ''),
    remediation: String(v.remediation ?? ''),
    adrLine: typeof v.adrLine === 'number' ? v.adrLine : undefined,
  };
}

const stem = (p: string) => basename(p).replace(/\.md$/i, '').toLowerCase();

export function adrMatches(adr: string, adrId: string, adrPath: string): boolean {
  const a = adr.toLowerCase();
  return a === adrId.toLowerCase() || a === stem(adrPath);
}

export function findingMatches(e: ExpectedFinding, f: Finding): boolean {
  const kinds = Array.isArray(e.kind) ? e.kind : [e.kind];
  if (e.remediation !== undefined && !f.remediation.toLowerCase().includes(e.remediation.toLowerCase())) return false;
  if (e.adr_line !== undefined && e.adr_line !== f.adrLine) return false;
  return e.path === f.path && e.line === f.line && kinds.includes(f.kind) && e.severity === f.severity && e.inferred === f.inferred && adrMatches(e.adr, f.adrId, f.adrPath);
}

function diagnosticMatches(e: ExpectedDiagnostic, d: ReportedDiagnostic): boolean {
  if (e.code && e.code !== d.code) return false;
  if (stem(d.adrPath) !== e.adr.toLowerCase() && !d.adrPath.toLowerCase().includes(e.adr.toLowerCase())) return false;
  if (e.line === undefined) return true;
  return (Array.isArray(e.line) ? e.line : [e.line]).includes(d.line);
}

/** Compares reported findings with the expected ones: a reported finding matches at most one expectation. */
export function compare(c: EvalCase, reported: Finding[]): Pick<CaseResult, 'tp' | 'fp' | 'fn' | 'outsideScope'> {
  const left = [...reported];
  const tp: CaseResult['tp'] = [];
  const fn: ExpectedFinding[] = [];
  for (const e of c.expect) {
    const i = left.findIndex((f) => findingMatches(e, f));
    if (i < 0) fn.push(e);
    else tp.push({ expected: e, found: left.splice(i, 1)[0] });
  }
  const outside = (f: Finding) =>
    (c.out_of_scope ?? []).some((o) => (typeof o === 'string' ? o === f.path : o.path === f.path && (!o.adr || adrMatches(o.adr, f.adrId, f.adrPath)) && (!o.line || o.line === f.line)));
  return { tp, fp: left, fn, outsideScope: reported.filter(outside) };
}

export function runCase(c: EvalCase, cli: string): CaseResult {
  const t0 = performance.now();
  const hookExpected = c.expect.some((e) => e.severity === 'error') ? 1 : 0;
  const base = { name: c.name, split: c.split, style: c.style, hookExpected, diagnosticsExpected: (c.expect_diagnostics ?? []).length };
  let root: string | undefined;
  try {
    root = buildRepo(c, cli);
    const env = caseEnv();
    const r = spawnSync(process.execPath, [cli, 'guard', '--staged', '--json'], { cwd: root, env, encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 });
    let json: { violations?: Array<Record<string, unknown>>; diagnostics?: Array<Record<string, unknown>> } | undefined;
    try {
      json = JSON.parse(r.stdout);
    } catch {
      json = undefined;
    }
    const hook = spawnSync(process.execPath, [cli, 'hook', 'pre-commit'], { cwd: root, env, encoding: 'utf8', timeout: 120_000 });
    if ((r.status !== 0 && r.status !== 1) || !json || !Array.isArray(json.violations)) {
      const detail = `exit ${r.status ?? r.signal}: ${(r.stderr || r.stdout || '').slice(0, 400)}`;
      return { ...base, crashed: true, crashDetail: detail, reported: [], tp: [], fp: [], fn: [...c.expect], diagnostics: [], missingDiagnostics: [...(c.expect_diagnostics ?? [])], outsideScope: [], hookExit: hook.status, ms: performance.now() - t0 };
    }
    const seen = new Set<string>();
    const reported: Finding[] = [];
    for (const v of json.violations) {
      const f = toFinding(v);
      const key = [f.path, f.line, f.kind, f.severity, f.inferred, f.adrId, f.adrPath].join('\0');
      if (!seen.has(key)) {
        seen.add(key);
        reported.push(f);
      }
    }
    const diagnostics: ReportedDiagnostic[] = (json.diagnostics ?? []).map((d) => ({ code: String(d.code), adrPath: String(d.adrPath ?? ''), line: Number(d.line), message: String(d.message ?? '') }));
    const missingDiagnostics = (c.expect_diagnostics ?? []).filter((e) => !diagnostics.some((d) => diagnosticMatches(e, d)));
    return { ...base, crashed: false, reported, ...compare(c, reported), diagnostics, missingDiagnostics, hookExit: hook.status, ms: performance.now() - t0 };
  } catch (err) {
    const detail = `runner: ${(err as Error).message.slice(0, 400)}`;
    return { ...base, crashed: true, crashDetail: detail, reported: [], tp: [], fp: [], fn: [...c.expect], diagnostics: [], missingDiagnostics: [...(c.expect_diagnostics ?? [])], outsideScope: [], hookExit: null, ms: performance.now() - t0 };
  } finally {
    if (root) rmSync(root, { recursive: true, force: true });
  }
}

/** A case is correct when it reports exactly the expected findings, its diagnostics, and the right hook exit. */
export function casePassed(r: CaseResult): boolean {
  return !r.crashed && r.fp.length === 0 && r.fn.length === 0 && r.missingDiagnostics.length === 0 && r.hookExit === r.hookExpected;
}
