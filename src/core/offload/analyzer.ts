import { visibleLine } from './ansi';
import { isLibraryPath } from './frames';
import { GoTracker } from './goTracker';
import { JsTracker } from './jsTracker';
import { JvmTracker } from './jvmTracker';
import { NativeTracker } from './nativeTracker';
import { MAX_ANALYSED_CHARS, RX } from './patterns';
import { PythonTracker } from './pythonTracker';
import { TestTally } from './testTally';
import type { ReportSink } from './sink';
import type { ErrorKind, Location, LogAnalysis, LogError, Phase, Runtime } from './types';

const MAX_KEPT_ERRORS = 50;
const MAX_CODES = 200;
/** `go test -json` wraps every output line in an event; longer lines are not worth a JSON parse. */
const MAX_JSON_EVENT = 64 * 1024;

/**
 * Errors that explain a failure outrank test-runner verdicts, which outrank fixture/setup errors (the
 * environment, not the code under test), lint findings, and "make: *** Error 1" summaries.
 */
const RANK: Record<ErrorKind, number> = {
  'compile-error': 0,
  'type-error': 0,
  'link-error': 0,
  panic: 0,
  fatal: 0,
  exception: 0,
  uncaught: 0,
  'unhandled-rejection': 0,
  sanitizer: 0,
  'test-failure': 1,
  'setup-error': 2,
  lint: 3,
  'lint-note': 4,
  'build-failure': 5,
};

export function runtimeOfFile(file: string): Runtime {
  if (/\.rs$/.test(file)) return 'rust';
  if (/\.py$/.test(file)) return 'python';
  if (/\.(ts|tsx|mts|cts)$/.test(file)) return 'typescript';
  if (/\.(js|jsx|mjs|cjs)$/.test(file)) return 'javascript';
  if (/\.go$/.test(file)) return 'go';
  if (/\.(c|cc|cpp|cxx|h|hh|hpp|hxx|m|mm)$/.test(file)) return 'c-cpp';
  if (/\.(java|kt|scala)$/.test(file)) return 'java';
  if (/\.(cs|fs|vb)$/.test(file)) return 'dotnet';
  if (/\.(sh|bash|zsh)$/.test(file)) return 'shell';
  return 'unknown';
}

/**
 * A streaming state machine over log lines: it keeps a bounded amount of state (the report being read, at most
 * MAX_KEPT_ERRORS errors) so a log of any size can be analysed. Each language family has a tracker that knows
 * its stack-frame grammar and how its runner names a failing test; the analyzer routes lines to them and
 * picks the primary error. Feed it lines that are already ANSI-stripped; `finish()` returns the analysis.
 */
export class LogAnalyzer implements ReportSink {
  private lineNo = 0;
  private readonly errors: LogError[] = [];
  private errorCount = 0;
  private warningCount = 0;
  private readonly tests = new TestTally();
  private readonly phases: Phase[] = [];
  readonly evidence: Record<Runtime, number> = { rust: 0, python: 0, typescript: 0, javascript: 0, go: 0, 'c-cpp': 0, java: 0, dotnet: 0, shell: 0, unknown: 0 };
  private readonly codeCounts: Record<string, number> = {};
  private best: LogError | undefined;

  private readonly python = new PythonTracker(this);
  private readonly js = new JsTracker(this);
  private readonly jvm = new JvmTracker(this);
  private readonly native = new NativeTracker(this);
  private readonly go = new GoTracker(this);

  push(rawLine: string): void {
    this.lineNo++;
    const line = rawLine.length > MAX_ANALYSED_CHARS ? rawLine.slice(0, MAX_ANALYSED_CHARS) : rawLine;
    const inner = line.length < MAX_JSON_EVENT ? goJsonOutput(line) : undefined;
    if (inner !== undefined) {
      for (const l of inner.split('\n')) if (l) this.analyse(visibleLine(l));
      return;
    }
    this.analyse(line);
  }

  private analyse(raw: string): void {
    const line = this.python.normalise(stripTimestamp(raw));
    if (!line.trim()) {
      this.native.onBlank();
      this.go.onBlank();
      this.js.onBlank();
      return;
    }
    this.phaseHints(line);
    if (this.python.continue(line) || this.native.continue(line) || this.go.continue(line) || this.jvm.continue(line) || this.js.continue(line)) return;
    if (this.native.start(line) || this.go.start(line) || this.python.start(line) || this.jvm.start(line) || this.js.start(line)) return;
    if (this.tests.summary(line)) this.addPhase('test');
  }

  finish(): LogAnalysis {
    this.python.finish();
    this.js.finish();
    this.jvm.finish();
    this.native.finish();
    // The causes in a chain were seen too: "every code in the log" includes them (GC and distill list them).
    for (const e of this.errors) for (const link of e.chain ?? []) if (link.code !== e.code && this.codeCounts[link.code] === undefined && Object.keys(this.codeCounts).length < MAX_CODES) this.codeCounts[link.code] = 1;
    const primary = this.pickPrimary();
    let runtime: Runtime = primary?.runtime ?? 'unknown';
    if (runtime === 'unknown') {
      let max = 0;
      for (const [r, n] of Object.entries(this.evidence) as [Runtime, number][]) if (n > max && r !== 'unknown') [runtime, max] = [r, n];
    }
    return {
      lines: this.lineNo,
      errors: this.errors,
      errorCount: this.errorCount,
      warningCount: this.warningCount,
      tests: { failed: this.tests.failed, passed: this.tests.passed },
      phases: [...this.phases],
      runtime,
      primary,
      codeCounts: { ...this.codeCounts },
    };
  }

  /** Lowest rank wins; among equals the first one with a root location, else the first one. */
  private pickPrimary(): LogError | undefined {
    let best: LogError | undefined;
    for (const e of this.errors) {
      if (!best || RANK[e.kind] < RANK[best.kind] || (RANK[e.kind] === RANK[best.kind] && !best.location && e.location)) best = e;
    }
    // Errors past the kept window only matter if they outrank everything kept.
    if (this.best && (!best || RANK[this.best.kind] < RANK[best.kind])) best = this.best;
    return best;
  }

  // ------------------------------------------------------------------ ReportSink

  addPhase(p: Phase): void {
    if (!this.phases.includes(p)) this.phases.push(p);
  }

  countTest(outcome: 'failed' | 'passed'): void {
    this.tests.perTest(outcome);
  }

  runtimePhase(): Phase {
    return this.phases.includes('test') ? 'test' : 'run';
  }

  record(e: Omit<LogError, 'logLine'>): LogError {
    const err: LogError = { ...e, logLine: this.lineNo };
    this.errorCount++;
    if (this.errors.length < MAX_KEPT_ERRORS) this.errors.push(err);
    if (this.codeCounts[err.code] !== undefined || Object.keys(this.codeCounts).length < MAX_CODES) {
      this.codeCounts[err.code] = (this.codeCounts[err.code] ?? 0) + 1;
    }
    if (!this.best || RANK[err.kind] < RANK[this.best.kind]) this.best = err;
    this.addPhase(err.phase);
    if (err.runtime !== 'unknown') this.evidence[err.runtime] += 3;
    return err;
  }

  /** Codes refined after the first line (pytest, TAP, Rust assertions) keep `codeCounts` right. */
  recode(err: LogError, code: string): void {
    if (err.code === code) return;
    const old = this.codeCounts[err.code];
    if (old !== undefined) {
      if (old <= 1) delete this.codeCounts[err.code];
      else this.codeCounts[err.code] = old - 1;
    }
    this.codeCounts[code] = (this.codeCounts[code] ?? 0) + 1;
    err.code = code;
  }

  setLocation(err: LogError, l: Location): void {
    err.location = l;
    const r = runtimeOfFile(l.file);
    if (r === 'unknown') return;
    if (err.runtime === 'unknown' || (err.runtime === 'javascript' && r === 'typescript')) err.runtime = r;
  }

  isLibrary(l: Location): boolean {
    return isLibraryPath(l.file);
  }

  private phaseHints(line: string): void {
    if (RX.compileHint.test(line)) this.addPhase('compile');
    else if (RX.testHint.test(line)) this.addPhase('test');
    // A panic or traceback while tests run belongs to the test phase; only an explicit `Running \`bin\`` starts a run.
    else if (RX.runHint.test(line) && (!this.phases.includes('test') || /^\s*Running `/.test(line))) this.addPhase('run');
    if (RX.warning.test(line)) this.warningCount++;
    if (RX.nodeVersion.test(line)) this.evidence.javascript++;
  }
}

/** CI services (GitHub Actions, GitLab, Buildkite) stamp every line with an ISO time; the report starts after it. */
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)? /;
/**
 * Task runners that multiplex several processes prefix each line with its source: Turborepo `web:test: `,
 * docker compose `api-1  | `. The task part starts with a letter, so `file.c:12: ` and `Makefile:3: ` never match.
 */
const TASK_PREFIX = /^(?:[@\w./-]+:[A-Za-z][\w-]*: |[\w.-]+\s+\| )/;

function stripTimestamp(line: string): string {
  const t = line.charCodeAt(0) >= 48 && line.charCodeAt(0) <= 57 ? line.replace(TIMESTAMP, '') : line;
  return t.replace(TASK_PREFIX, '');
}

/** The printed output inside a `go test -json` event line, or undefined for any other line. */
function goJsonOutput(line: string): string | undefined {
  if (!line.startsWith('{"') || !line.includes('"Action":"output"') || !line.endsWith('}')) return undefined;
  try {
    const ev = JSON.parse(line) as { Output?: unknown };
    return typeof ev.Output === 'string' ? ev.Output : undefined;
  } catch {
    return undefined;
  }
}

/** Analyses a whole string (tests, short traces). Long inputs should be streamed through LogAnalyzer. */
export function analyzeText(text: string): LogAnalysis {
  const a = new LogAnalyzer();
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    if (nl < 0 && start >= text.length) break;
    a.push(visibleLine(text.slice(start, end)));
    if (nl < 0) break;
    start = nl + 1;
  }
  return a.finish();
}
