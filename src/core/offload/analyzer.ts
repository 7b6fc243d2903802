import { visibleLine } from './ansi';
import { isLibraryPath } from './frames';
import { cCompilerCode, isCFile, MAX_ANALYSED_CHARS, RX } from './patterns';
import { TestTally } from './testTally';
import { PythonTracker } from './pythonTracker';
import { loc, type ReportSink } from './sink';
import type { ErrorKind, Location, LogAnalysis, LogError, Phase, Runtime } from './types';

const MAX_KEPT_ERRORS = 50;
const MAX_CODES = 200;

/** Errors that explain a failure outrank test-runner verdicts, which outrank "make: *** Error 1" summaries. */
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
  'build-failure': 2,
};


function runtimeOfFile(file: string): Runtime {
  if (/\.rs$/.test(file)) return 'rust';
  if (/\.py$/.test(file)) return 'python';
  if (/\.(ts|tsx|mts|cts)$/.test(file)) return 'typescript';
  if (/\.(js|jsx|mjs|cjs)$/.test(file)) return 'javascript';
  if (/\.go$/.test(file)) return 'go';
  if (isCFile(file)) return 'c-cpp';
  return 'unknown';
}

/**
 * A streaming state machine over log lines: it keeps a bounded amount of state (the current traceback /
 * goroutine dump / sanitizer stack, at most MAX_KEPT_ERRORS errors) so a log of any size can be analysed.
 * Feed it lines that are already ANSI-stripped; `finish()` returns the analysis.
 */
export class LogAnalyzer implements ReportSink {
  private lineNo = 0;
  private readonly errors: LogError[] = [];
  private errorCount = 0;
  private warningCount = 0;
  private readonly tests = new TestTally();
  private readonly phases: Phase[] = [];
  readonly evidence: Record<Runtime, number> = { rust: 0, python: 0, typescript: 0, javascript: 0, go: 0, 'c-cpp': 0, unknown: 0 };
  private readonly codeCounts: Record<string, number> = {};
  private best: LogError | undefined;

  // Context of multi-line reports.
  private rustPending: LogError | undefined; // waits for its `--> file:line:col`
  private rustPendingTtl = 0;
  private rustPanic: LogError | undefined; // waits for its message line / first user backtrace frame
  private rustPanicNeedsMessage = false;
  private readonly python = new PythonTracker(this);
  private js: { throwSite?: Location; throwTtl: number; current?: LogError } = { throwTtl: 0 };
  private go: { current?: LogError; frames: boolean } = { frames: false };
  private asan: { current?: LogError; inStack: boolean } = { inStack: false };
  private tap: { current?: LogError; wantMessage: boolean; testName: string; declared?: Location } = { wantMessage: false, testName: '' };

  push(rawLine: string): void {
    this.lineNo++;
    const line = rawLine.length > MAX_ANALYSED_CHARS ? rawLine.slice(0, MAX_ANALYSED_CHARS) : rawLine;
    if (!line.trim()) {
      this.onBlank();
      return;
    }
    this.phaseHints(line);
    if (this.continueContexts(line)) return;
    this.startReports(line);
  }

  finish(): LogAnalysis {
    this.settle();
    this.settleTap();
    const primary = this.best;
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

  // ------------------------------------------------------------------ helpers

  addPhase(p: Phase): void {
    if (!this.phases.includes(p)) this.phases.push(p);
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
    if (err.runtime === 'unknown' || (err.runtime === 'javascript' && runtimeOfFile(l.file) === 'typescript')) {
      const r = runtimeOfFile(l.file);
      if (r !== 'unknown') err.runtime = r;
    }
  }

  private phaseHints(line: string): void {
    if (RX.compileHint.test(line)) this.addPhase('compile');
    else if (RX.testHint.test(line)) this.addPhase('test');
    // A panic or traceback while tests run belongs to the test phase; only an explicit `Running \`bin\`` starts a run.
    else if (RX.runHint.test(line) && (!this.phases.includes('test') || /^\s*Running `/.test(line))) this.addPhase('run');
    if (RX.warning.test(line)) this.warningCount++;
    if (RX.nodeVersion.test(line)) this.evidence.javascript++;
  }

  private onBlank(): void {
    this.asan.inStack = false;
    this.go.frames = false;
    // A blank line ends the frames of a Node error; a Python traceback may contain none.
    this.js.current = undefined;
  }

  /** Lines that continue an open multi-line report. Returns true when the line was consumed. */
  private continueContexts(line: string): boolean {
    let m: RegExpMatchArray | null;
    if (this.rustPending && this.rustPendingTtl-- > 0 && (m = line.match(RX.rustArrow))) {
      this.setLocation(this.rustPending, loc(m[1], m[2], m[3]));
      this.rustPending = undefined;
      return true;
    }
    if (this.rustPanic) {
      if (this.rustPanicNeedsMessage) {
        this.rustPanic.message = line.trim();
        this.rustPanicNeedsMessage = false;
        // `assert!`/`assert_eq!` inside `cargo test` is a test verdict, not a crash.
        if (/^assertion .*failed/.test(this.rustPanic.message)) {
          this.recode(this.rustPanic, 'assertion-failed');
          if (this.rustPanic.phase === 'test') this.rustPanic.kind = 'test-failure';
        }
        return true;
      }
      if ((m = line.match(RX.rustBtAt))) {
        const l = loc(m[1], m[2], m[3]);
        if (!this.rustPanic.location && !isLibraryPath(l.file)) this.setLocation(this.rustPanic, l);
        return true;
      }
    }
    if (this.python.continue(line)) return true;
    if (this.js.current && (m = line.match(RX.jsFrame))) {
      const l = loc(m[2], m[3], m[4]);
      if (this.js.current.runtime === 'unknown') this.js.current.runtime = 'javascript';
      if (!this.js.current.location && !isLibraryPath(l.file)) this.setLocation(this.js.current, l);
      this.evidence.javascript++;
      return true;
    }
    if (this.js.current && (m = line.match(RX.jsCode))) {
      if (m[1] === 'ERR_UNHANDLED_REJECTION') this.js.current.kind = 'unhandled-rejection';
      if (this.js.current.code === 'Error') this.recode(this.js.current, m[1]);
      return true;
    }
    if (this.tap.current) {
      const cur = this.tap.current;
      if (this.tap.wantMessage) {
        this.tap.wantMessage = false;
        cur.message = `${this.tap.testName}: ${line.trim()}`;
        return true;
      }
      if ((m = line.match(RX.tapErrorStart))) {
        if (m[1]) cur.message = `${this.tap.testName}: ${m[1]}`;
        else this.tap.wantMessage = true;
        return true;
      }
      if ((m = line.match(RX.tapName))) {
        this.recode(cur, m[1]);
        return true;
      }
      if ((m = line.match(RX.tapLocation))) {
        this.tap.declared = loc(m[1], m[2], m[3]);
        return true;
      }
      if ((m = line.match(RX.tapStackFrame))) {
        const l = loc(m[1], m[2], m[3]);
        if (!cur.location && !isLibraryPath(l.file)) this.setLocation(cur, l);
        return true;
      }
      if (RX.tapEnd.test(line)) {
        this.settleTap();
        return true;
      }
    }
    if (this.go.current) {
      if (RX.goGoroutine.test(line)) {
        this.go.frames = true;
        this.evidence.go++;
        return true;
      }
      if (this.go.frames && (m = line.match(RX.goFrame))) {
        const l = loc(m[1], m[2]);
        if (!this.go.current.location && !isLibraryPath(l.file)) this.setLocation(this.go.current, l);
        return true;
      }
      if (this.go.frames && /^\S.*\(.*\)$/.test(line)) return true; // function line above each frame
    }
    if (this.asan.current) {
      if ((m = line.match(RX.asanFrame))) {
        const l = loc(m[2], m[3], m[4]);
        if (this.asan.inStack && !this.asan.current.location && !isLibraryPath(l.file)) this.setLocation(this.asan.current, l);
        return true;
      }
      if ((m = line.match(RX.asanSummary))) {
        if (!this.asan.current.location) this.setLocation(this.asan.current, loc(m[3], m[4], m[5]));
        this.asan.current = undefined;
        return true;
      }
      const access = line.match(/^(READ|WRITE) of size (\d+)/);
      if (access) {
        this.asan.current.message = `${this.asan.current.code}: ${access[1]} of size ${access[2]}`;
        return true;
      }
      // Later stacks ("freed by thread T0 here:") describe history, not the faulting access.
      if (/^(freed by|previously allocated by|allocated by)/.test(line)) this.asan.inStack = false;
    }
    return false;
  }

  /** Lines that open a new report. */
  private startReports(line: string): void {
    let m: RegExpMatchArray | null;
    if ((m = line.match(RX.rustErr))) {
      this.rustPending = this.record({ code: m[1], kind: 'compile-error', message: m[2], runtime: 'rust', phase: 'compile' });
      this.rustPendingTtl = 4;
      return;
    }
    if ((m = line.match(RX.tsErr)) || (m = line.match(RX.tsErrPretty))) {
      const err = this.record({ code: m[4], kind: 'type-error', message: m[5], runtime: 'typescript', phase: 'compile' });
      this.setLocation(err, loc(m[1], m[2], m[3]));
      if (err.runtime !== 'typescript' && err.runtime !== 'javascript') err.runtime = 'typescript';
      return;
    }
    if ((m = line.match(RX.asanErr))) {
      this.asan.current = this.record({ code: m[2], kind: 'sanitizer', message: `${m[1]}: ${m[2]}`, runtime: 'c-cpp', phase: this.runtimePhase() });
      this.asan.inStack = true;
      return;
    }
    if ((m = line.match(RX.ubsan))) {
      const err = this.record({ code: 'ubsan-runtime-error', kind: 'sanitizer', message: m[4], runtime: 'c-cpp', phase: this.runtimePhase() });
      this.setLocation(err, loc(m[1], m[2], m[3]));
      return;
    }
    if ((m = line.match(RX.ccErr))) {
      const err = this.record({ code: cCompilerCode(m[4]), kind: 'compile-error', message: m[4], runtime: isCFile(m[1]) ? 'c-cpp' : 'unknown', phase: 'compile' });
      this.setLocation(err, loc(m[1], m[2], m[3]));
      return;
    }
    if ((m = line.match(RX.rustPanic))) {
      this.rustPanic = this.record({ code: 'panic', kind: 'panic', message: '', runtime: 'rust', phase: this.runtimePhase() });
      const l = loc(m[2], m[3], m[4]);
      if (!isLibraryPath(l.file)) this.setLocation(this.rustPanic, l);
      this.rustPanicNeedsMessage = true;
      return;
    }
    if ((m = line.match(RX.rustPanicOld))) {
      this.rustPanic = this.record({ code: 'panic', kind: 'panic', message: m[2], runtime: 'rust', phase: this.runtimePhase() });
      const l = loc(m[3], m[4], m[5]);
      if (!isLibraryPath(l.file)) this.setLocation(this.rustPanic, l);
      return;
    }
    if (this.python.start(line)) return;
    if ((m = line.match(RX.goFatal))) {
      this.go = { current: this.record({ code: 'fatal error', kind: 'fatal', message: m[1], runtime: 'go', phase: this.runtimePhase() }), frames: false };
      return;
    }
    if ((m = line.match(RX.goPanic))) {
      this.go = { current: this.record({ code: 'panic', kind: 'panic', message: m[1], runtime: 'go', phase: this.runtimePhase() }), frames: false };
      return;
    }
    if ((m = line.match(RX.goBuild))) {
      const err = this.record({ code: 'go-build', kind: 'compile-error', message: m[4], runtime: 'go', phase: 'compile' });
      this.setLocation(err, loc(m[1], m[2], m[3]));
      return;
    }
    if ((m = line.match(RX.goTestFail))) {
      this.tests.perTest('failed');
      this.go.current = this.record({ code: 'test-failure', kind: 'test-failure', message: m[1], runtime: 'go', phase: 'test' });
      return;
    }
    if (this.go.current?.kind === 'test-failure' && (m = line.match(RX.goTestLoc))) {
      if (!this.go.current.location) this.setLocation(this.go.current, loc(m[1], m[2]));
      this.go.current.message = `${this.go.current.message}: ${m[3]}`;
      return;
    }
    if (RX.goTestPass.test(line)) this.tests.perTest('passed');
    if ((m = line.match(RX.jsThrowSite))) {
      this.js.throwSite = loc(m[1], m[2]);
      this.js.throwTtl = 6;
      return;
    }
    if ((m = line.match(RX.jsErr))) {
      const rejection = m[1] === 'UnhandledPromiseRejection';
      const err = this.record({
        code: rejection ? 'ERR_UNHANDLED_REJECTION' : (m[2] ?? m[1]),
        kind: rejection ? 'unhandled-rejection' : 'uncaught',
        message: `${m[1]}: ${m[3]}`,
        // `ValueError: x` printed by a Python logger looks the same: only a throw site, Node evidence or a
        // following `at` frame makes it JavaScript.
        runtime: rejection || (this.js.throwSite && this.js.throwTtl > 0) || this.evidence.javascript > 0 ? 'javascript' : 'unknown',
        phase: this.runtimePhase(),
      });
      this.settle();
      this.js.current = err;
      // The first user frame in the stack wins; the throw site printed above the message is the fallback.
      const site = this.js.throwSite;
      this.jsFallback = site && this.js.throwTtl > 0 && !isLibraryPath(site.file) ? site : undefined;
      this.jsFallbackFor = err;
      return;
    }
    if (this.js.throwTtl > 0) this.js.throwTtl--;
    if ((m = line.match(RX.rustErrPlain))) {
      const couldNot = /^could not compile|^aborting due to|^test failed|^build failed/.test(m[1]);
      this.record({ code: couldNot ? 'build-failed' : 'rustc-error', kind: couldNot ? 'build-failure' : 'compile-error', message: m[1], runtime: 'rust', phase: 'compile' });
      return;
    }
    if ((m = line.match(RX.ldErr))) {
      this.record({ code: 'link-error', kind: 'link-error', message: m[1] ? `undefined reference to ${m[1]}` : line.trim(), runtime: 'c-cpp', phase: 'compile' });
      return;
    }
    if ((m = line.match(RX.makeErr))) {
      this.record({ code: 'build-failed', kind: 'build-failure', message: m[1], runtime: 'unknown', phase: 'compile' });
      return;
    }
    if ((m = line.match(RX.npmErr))) {
      this.record({ code: m[1], kind: 'build-failure', message: `npm error ${m[1]}`, runtime: 'javascript', phase: this.phases.at(-1) ?? 'run' });
      return;
    }
    if ((m = line.match(RX.cargoTestFailed))) {
      this.record({ code: 'test-failure', kind: 'test-failure', message: m[1], runtime: 'rust', phase: 'test' });
      return;
    }
    if ((m = line.match(RX.unittestFail))) {
      this.record({ code: m[1] === 'FAIL' ? 'AssertionError' : 'test-error', kind: 'test-failure', message: `${m[2]} (${m[3]})`, runtime: 'python', phase: 'test' });
      return;
    }
    if ((m = line.match(RX.tapNotOk))) {
      this.settleTap();
      const err = this.record({ code: 'test-failure', kind: 'test-failure', message: m[1], runtime: 'javascript', phase: 'test' });
      this.tap = { current: err, wantMessage: false, testName: m[1] };
      return;
    }
    if ((m = line.match(RX.jestBullet))) {
      this.record({ code: 'test-failure', kind: 'test-failure', message: m[1], runtime: 'javascript', phase: 'test' });
      return;
    }
    if (this.tests.summary(line)) this.addPhase('test');
  }

  private jsFallback: Location | undefined;
  private jsFallbackFor: LogError | undefined;

  /** A TAP failure without a user stack frame falls back to where the test is declared. */
  private settleTap(): void {
    const cur = this.tap.current;
    if (cur && !cur.location && this.tap.declared) this.setLocation(cur, this.tap.declared);
    this.tap = { wantMessage: false, testName: '' };
  }

  /** Node errors whose stack has no user frame fall back to the throw site printed above the message. */
  private settle(): void {
    if (this.jsFallbackFor && !this.jsFallbackFor.location && this.jsFallback) this.setLocation(this.jsFallbackFor, this.jsFallback);
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
