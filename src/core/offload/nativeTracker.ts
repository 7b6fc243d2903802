import { isLibraryPath } from './frames';
import { cCompilerCode, isCFile, RX } from './patterns';
import { loc, type ReportSink } from './sink';
import type { Location, LogError } from './types';

/**
 * Compilers, linkers, build tools, linters and the native runtimes: rustc / cargo / clippy / nextest, tsc,
 * gcc / clang / ld / lld, CMake / make / ninja, the sanitizers and valgrind, C++ terminate and signals,
 * eslint and shellcheck. Their reports are a headline plus a location line or a frame list.
 */
export class NativeTracker {
  private rust: { pending?: LogError; ttl: number; panic?: LogError; needsMessage: boolean; test?: string } = { ttl: 0, needsMessage: false };
  private asan: { current?: LogError; inStack: boolean } = { inStack: false };
  private cmake: LogError | undefined;
  private terminate: LogError | undefined;
  private valgrind: LogError | undefined;
  private eslintFile: string | undefined;
  private shellcheck: Location | undefined;
  private lld: LogError | undefined;
  private ccInLibrary: { err: LogError; ttl: number } | undefined;
  private includeSite: Location | undefined;

  constructor(private readonly sink: ReportSink) {}

  onBlank(): void {
    this.asan.inStack = false;
    this.eslintFile = undefined;
  }

  finish(): void {
    this.settleRust();
  }

  /**
   * `error: …` is how rustc, clippy and cargo start a report — and how git, pip and many other tools print a
   * one-line complaint. Without the `-->` location line rustc always prints, it is a symptom, not a compile error.
   */
  private settleRust(): void {
    const p = this.rust.pending;
    this.rust.pending = undefined;
    if (p && !p.location && p.code === 'rustc-error') p.kind = 'build-failure';
  }

  continue(line: string): boolean {
    let m: RegExpMatchArray | null;
    const s = this.sink;
    if (this.rust.pending) {
      if (this.rust.ttl-- > 0 && (m = line.match(RX.rustArrow))) {
        s.setLocation(this.rust.pending, loc(m[1], m[2], m[3]));
        this.rust.pending = undefined;
        return true;
      }
      if (this.rust.ttl <= 0) this.settleRust();
    }
    if (this.rust.panic) {
      const p = this.rust.panic;
      if (this.rust.needsMessage) {
        p.message = line.trim();
        this.rust.needsMessage = false;
        // `assert!`/`assert_eq!` inside `cargo test` is a test verdict, not a crash.
        if (/^assertion .*failed/.test(p.message)) {
          s.recode(p, 'assertion-failed');
          if (p.phase === 'test') p.kind = 'test-failure';
        }
        return true;
      }
      if ((m = line.match(RX.rustBtAt))) {
        const l = loc(m[1], m[2], m[3]);
        if (!p.location && !isLibraryPath(l.file)) s.setLocation(p, l);
        return true;
      }
    }
    if (this.valgrind) {
      if ((m = line.match(RX.valgrindFrame))) {
        if (!this.valgrind.location && !isLibraryPath(m[1])) s.setLocation(this.valgrind, loc(m[1], m[2]));
        return true;
      }
      // " Address 0x… is 0 bytes after a block … alloc'd": the next stack is the allocation, not the access.
      if (/^==\d+== {1,2}\S/.test(line) || /^==\d+== $/.test(line)) this.valgrind = undefined;
    }
    if (this.terminate) {
      const err = this.terminate;
      this.terminate = undefined;
      if ((m = line.match(/^\s+what\(\):\s+(.*)$/))) {
        err.message = `${err.code}: ${m[1]}`;
        return true;
      }
    }
    if (this.cmake) {
      const err = this.cmake;
      this.cmake = undefined;
      if (/^\s+\S/.test(line)) {
        err.message = `${err.message}: ${line.trim()}`;
        return true;
      }
    }
    if (this.ccInLibrary && (m = line.match(RX.ccNote))) {
      const at = loc(m[1], m[2], m[3]);
      if (!isLibraryPath(at.file)) {
        s.setLocation(this.ccInLibrary.err, at);
        this.ccInLibrary = undefined;
      } else if (--this.ccInLibrary.ttl <= 0) this.ccInLibrary = undefined;
      return true;
    }
    if (this.lld && (m = line.match(RX.lldRef))) {
      if (!this.lld.location && !isLibraryPath(m[1])) s.setLocation(this.lld, loc(m[1], m[2]));
      return true;
    }
    if (this.eslintFile && (m = line.match(RX.eslintItem))) {
      if (m[3] === 'error') {
        const err = s.record({ code: m[5], kind: 'lint', message: `${m[4]} (${m[5]})`, runtime: 'unknown', phase: 'compile' });
        s.setLocation(err, loc(this.eslintFile, m[1], m[2]));
      }
      return true;
    }
    if (this.shellcheck && (m = line.match(RX.shellcheckItem))) {
      const err = s.record({ code: m[1], kind: m[2] === 'error' || m[2] === 'warning' ? 'lint' : 'lint-note', message: `${m[1]} (${m[2]}): ${m[3]}`, runtime: 'shell', phase: 'compile' });
      s.setLocation(err, this.shellcheck);
      return true;
    }
    if (this.asan.current) {
      if ((m = line.match(RX.asanFrame))) {
        const l = loc(m[2], m[3], m[4]);
        if (this.asan.inStack && !this.asan.current.location && !isLibraryPath(l.file)) s.setLocation(this.asan.current, l);
        return true;
      }
      if ((m = line.match(RX.asanSummary))) {
        if (!this.asan.current.location) s.setLocation(this.asan.current, loc(m[3], m[4], m[5]));
        this.asan.current = undefined;
        return true;
      }
      const access = line.match(/^\s*(READ|WRITE|Read|Write|Atomic \w+|Previous \w+) of size (\d+)/);
      if (access) {
        if (/^\s*Previous/.test(access[1])) this.asan.inStack = false;
        else if (this.asan.current.message.indexOf(' of size ') < 0) {
          this.asan.current.message = `${this.asan.current.message}; ${access[1].toUpperCase()} of size ${access[2]}`;
          this.asan.inStack = true;
        }
        return true;
      }
      // LeakSanitizer: the first leak's allocation stack is the one to root at.
      if (/^(?:Direct|Indirect) leak of /.test(line)) {
        if (!this.asan.current.location) this.asan.inStack = true;
        return true;
      }
      // Later stacks ("freed by thread T0 here:", "Previous write …") describe history, not the faulting access.
      if (/^\s*(freed by|previously allocated by|allocated by|Location is|Mutex|Thread T\d+ .*created)/.test(line)) this.asan.inStack = false;
    }
    return false;
  }

  start(line: string): boolean {
    let m: RegExpMatchArray | null;
    const s = this.sink;
    if ((m = line.match(RX.rustErr))) {
      this.settleRust();
      this.rust.pending = s.record({ code: m[1], kind: 'compile-error', message: m[2], runtime: 'rust', phase: 'compile' });
      this.rust.ttl = 4;
      return true;
    }
    if ((m = line.match(RX.tsErr)) || (m = line.match(RX.tsErrPretty))) {
      const ts = m[4].startsWith('TS');
      const err = s.record({ code: m[4], kind: 'type-error', message: m[5], runtime: ts ? 'typescript' : 'dotnet', phase: 'compile' });
      s.setLocation(err, loc(m[1], m[2], m[3]));
      if (ts && err.runtime !== 'javascript') err.runtime = 'typescript';
      return true;
    }
    if ((m = line.match(RX.tsErrGlobal))) {
      s.record({ code: m[1], kind: 'type-error', message: m[2], runtime: 'typescript', phase: 'compile' });
      return true;
    }
    if ((m = line.match(RX.kotlinErr))) {
      const err = s.record({ code: 'kotlin-error', kind: 'compile-error', message: m[4], runtime: 'java', phase: 'compile' });
      s.setLocation(err, loc(m[1], m[2], m[3]));
      return true;
    }
    if ((m = line.match(RX.shellErr))) {
      const err = s.record({ code: /command not found/.test(m[3]) ? 'command-not-found' : 'sh-error', kind: 'exception', message: m[3], runtime: 'shell', phase: s.runtimePhase() });
      s.setLocation(err, loc(m[1], m[2]));
      return true;
    }
    if ((m = line.match(RX.ldCannotFind))) {
      s.record({ code: 'link-error', kind: 'link-error', message: m[1], runtime: 'c-cpp', phase: 'compile' });
      return true;
    }
    if ((m = line.match(RX.asanErr))) {
      const on = m[3] ? ` on ${m[3].replace(/ at pc .*$/, '')}` : '';
      const leak = m[1] === 'LeakSanitizer';
      const code = leak ? 'memory-leak' : m[2];
      const message = leak ? `${m[1]}: detected memory leaks` : `${m[1]}: ${m[2]}${on}`;
      this.asan = { current: s.record({ code, kind: 'sanitizer', message, runtime: 'c-cpp', phase: s.runtimePhase() }), inStack: !leak };
      return true;
    }
    if ((m = line.match(RX.tsan))) {
      const code = m[1].replace(/\s+/g, '-');
      this.asan = { current: s.record({ code, kind: 'sanitizer', message: `ThreadSanitizer: ${m[1]}`, runtime: 'c-cpp', phase: s.runtimePhase() }), inStack: true };
      return true;
    }
    if ((m = line.match(RX.ubsan))) {
      const err = s.record({ code: ubsanCode(m[4]), kind: 'sanitizer', message: m[4], runtime: 'c-cpp', phase: s.runtimePhase() });
      s.setLocation(err, loc(m[1], m[2], m[3]));
      return true;
    }
    if ((m = line.match(RX.shellcheckGcc))) {
      {
        const err = s.record({ code: m[6], kind: m[4] === 'note' ? 'lint-note' : 'lint', message: `${m[6]}: ${m[5]}`, runtime: 'shell', phase: 'compile' });
        s.setLocation(err, loc(m[1], m[2], m[3]));
      }
      return true;
    }
    if ((m = line.match(RX.eslintUnix))) {
      if (m[5] === 'Error') {
        const err = s.record({ code: m[6], kind: 'lint', message: `${m[4]} (${m[6]})`, runtime: 'unknown', phase: 'compile' });
        s.setLocation(err, loc(m[1], m[2], m[3]));
      }
      return true;
    }
    if ((m = line.match(RX.ccErr))) {
      const err = s.record({ code: cCompilerCode(m[4]), kind: 'compile-error', message: m[4], runtime: isCFile(m[1]) ? 'c-cpp' : 'unknown', phase: 'compile' });
      const at = loc(m[1], m[2], m[3]);
      s.setLocation(err, at);
      // An error inside a system header (a template instantiated with the user's type) roots where the user's
      // code asked for it: the "required from here" / "in instantiation … requested here" note, else the include.
      if (isLibraryPath(at.file)) {
        this.ccInLibrary = { err, ttl: 80 };
        if (this.includeSite) s.setLocation(err, this.includeSite);
      }
      this.includeSite = undefined;
      return true;
    }
    if ((m = line.match(RX.ccInclude))) {
      if (!isLibraryPath(m[1]) && !this.includeSite) this.includeSite = loc(m[1], m[2]);
      return true;
    }
    if ((m = line.match(RX.rustTestHeader))) {
      this.rust.test = m[1];
      s.addPhase('test');
      return true;
    }
    if ((m = line.match(RX.rustPanic)) || (m = line.match(RX.rustPanicOld))) {
      const old = m.length === 6;
      const thread = m[1];
      // libtest names each test's thread after the test; `main` and `<unnamed>` are not tests.
      const test = thread !== 'main' && !thread.startsWith('<') && s.runtimePhase() === 'test' ? thread : this.rust.test;
      this.rust.panic = s.record({ code: 'panic', kind: 'panic', message: old ? m[2] : '', runtime: 'rust', phase: s.runtimePhase(), ...(test ? { test } : {}) });
      const l = old ? loc(m[3], m[4], m[5]) : loc(m[2], m[3], m[4]);
      if (!isLibraryPath(l.file)) s.setLocation(this.rust.panic, l);
      this.rust.needsMessage = !old;
      return true;
    }
    if ((m = line.match(RX.rustErrPlain))) {
      const couldNot = /^could not compile|^aborting due to|^test failed|^build failed|^\d+ target failed|^linking with/.test(m[1]);
      const err = s.record({ code: couldNot ? 'build-failed' : 'rustc-error', kind: couldNot ? 'build-failure' : 'compile-error', message: m[1], runtime: 'rust', phase: 'compile' });
      // clippy and plain rustc errors name their location on the next `-->` line too.
      if (!couldNot) {
        this.settleRust();
        this.rust.pending = err;
        this.rust.ttl = 4;
      }
      return true;
    }
    if ((m = line.match(RX.ldLine))) {
      const err = s.record({ code: 'link-error', kind: 'link-error', message: line.slice(line.indexOf('undefined reference')).trim(), runtime: 'c-cpp', phase: 'compile' });
      if (!isLibraryPath(m[1]) && !/\.(o|a|so)$/.test(m[1])) s.setLocation(err, loc(m[1], m[2]));
      return true;
    }
    if ((m = line.match(RX.ldErr))) {
      const at = line.indexOf('undefined reference');
      this.lld = s.record({ code: 'link-error', kind: 'link-error', message: at >= 0 ? line.slice(at).trim() : line.trim(), runtime: 'c-cpp', phase: 'compile' });
      return true;
    }
    if ((m = line.match(RX.valgrindErr))) {
      const code = /^Invalid (read|write)/.test(m[1]) ? `invalid-${m[1].split(' ')[1]}` : /definitely lost/.test(m[1]) ? 'memory-leak' : /uninitialised/.test(m[1]) ? 'uninitialised-value' : /free/.test(m[1]) ? 'invalid-free' : 'memcheck-error';
      this.valgrind = s.record({ code, kind: 'sanitizer', message: `Memcheck: ${m[1]}`, runtime: 'c-cpp', phase: s.runtimePhase() });
      return true;
    }
    if ((m = line.match(RX.cxxTerminate))) {
      this.terminate = s.record({ code: m[1], kind: 'exception', message: m[1], runtime: 'c-cpp', phase: s.runtimePhase() });
      return true;
    }
    if ((m = line.match(RX.signal))) {
      const code = { 'Segmentation fault': 'SIGSEGV', 'Bus error': 'SIGBUS', 'Illegal instruction': 'SIGILL', 'Floating point exception': 'SIGFPE', Aborted: 'SIGABRT' }[m[1]] ?? 'signal';
      s.record({ code, kind: 'fatal', message: `${m[1]}${/core dumped/.test(line) ? ' (core dumped)' : ''}`, runtime: 'unknown', phase: s.runtimePhase() });
      return true;
    }
    if ((m = line.match(RX.cmakeErr))) {
      this.cmake = s.record({ code: 'cmake-error', kind: 'compile-error', message: `CMake Error (${m[3]})`, runtime: 'c-cpp', phase: 'compile' });
      s.setLocation(this.cmake, loc(m[1], m[2]));
      return true;
    }
    if ((m = line.match(RX.makeFileErr))) {
      const err = s.record({ code: 'make-error', kind: 'compile-error', message: m[3], runtime: 'unknown', phase: 'compile' });
      s.setLocation(err, loc(m[1], m[2]));
      return true;
    }
    if ((m = line.match(RX.makeErr)) || (m = line.match(/^ninja: build stopped: (.+)$/))) {
      s.record({ code: 'build-failed', kind: 'build-failure', message: m[1], runtime: 'unknown', phase: 'compile' });
      return true;
    }
    if ((m = line.match(RX.npmErr))) {
      s.record({ code: m[1], kind: 'build-failure', message: `npm error ${m[1]}`, runtime: 'javascript', phase: 'run' });
      return true;
    }
    if ((m = line.match(RX.cargoTestFailed)) || (m = line.match(RX.nextestFail))) {
      const name = m[1] ?? m[2];
      s.record({ code: 'test-failure', kind: 'test-failure', message: name, runtime: 'rust', phase: 'test', test: name });
      return true;
    }
    if ((m = line.match(RX.shellcheckAt))) {
      this.shellcheck = loc(m[1], m[2]);
      return true;
    }
    if ((m = line.match(RX.eslintFile)) && /\.[cm]?[jt]sx?$|\.vue$|\.svelte$/.test(m[1])) {
      this.eslintFile = m[1];
      return true;
    }
    return false;
  }

}

/** UBSan prints no check name by default: name the common checks the way `-fsanitize=` does. */
function ubsanCode(message: string): string {
  const checks: [RegExp, string][] = [
    [/^signed integer overflow/, 'signed-integer-overflow'],
    [/^unsigned integer overflow/, 'unsigned-integer-overflow'],
    [/out of bounds/, 'bounds'],
    [/^shift /, 'shift'],
    [/division by zero/, 'integer-divide-by-zero'],
    [/null pointer/, 'null'],
    [/misaligned address/, 'alignment'],
    [/is not a valid value for type/, 'bool-or-enum'],
    [/reached the end of a value-returning function/, 'return'],
  ];
  return checks.find(([re]) => re.test(message))?.[1] ?? 'undefined-behavior';
}
