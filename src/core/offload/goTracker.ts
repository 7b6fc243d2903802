import { isLibraryPath } from './frames';
import { RX } from './patterns';
import { loc, type ReportSink } from './sink';
import type { Location, LogError } from './types';

/**
 * Go: build errors, `go test` verdicts (-v, -json, subtests, fuzzing), panics and fatal errors with their
 * goroutine dumps (the first goroutine is the one that failed), and the race detector. A test's name comes
 * from `=== RUN` or from the `--- FAIL:` verdict printed after the panic or race it explains.
 */
export class GoTracker {
  private go: { current?: LogError; frames: boolean; running?: string; failed?: LogError; orphans?: LogError[] } = { frames: false };
  /** First `file.go:N: message` line each running Go test printed (bounded). */
  private readonly goLogs = new Map<string, { at: Location; message: string }>();

  constructor(private readonly sink: ReportSink) {}

  onBlank(): void {
    this.go.frames = false;
  }

  continue(line: string): boolean {
    let m: RegExpMatchArray | null;
    const s = this.sink;
    if (this.go.current) {
      if (RX.goGoroutine.test(line)) {
        this.go.frames = true;
        s.evidence.go++;
        return true;
      }
      if (this.go.frames && (m = line.match(RX.goFrame))) {
        const l = loc(m[1], m[2]);
        if (!this.go.current.location && !isLibraryPath(l.file)) s.setLocation(this.go.current, l);
        return true;
      }
      if (this.go.frames && /^\s*\S.*\(.*\)$/.test(line)) return true; // function line above each frame
      // The race detector's stacks: "Write at 0x… by goroutine 7:" then indented function/file lines.
      if (this.go.current.code === 'data-race' && /^(?:\s|(?:Previous )?(?:[Rr]ead|[Ww]rite) at |Goroutine \d+ )/.test(line)) {
        if ((m = line.match(RX.goFrame)) && !this.go.current.location && !isLibraryPath(m[1])) s.setLocation(this.go.current, loc(m[1], m[2]));
        if (/^Previous /.test(line)) this.go.frames = false;
        return true;
      }
    }
    return false;
  }

  start(line: string): boolean {
    let m: RegExpMatchArray | null;
    const s = this.sink;
    if ((m = line.match(RX.goTestLogPanic))) {
      this.goOpen(this.goRecord({ code: 'panic', kind: 'panic', message: m[1], runtime: 'go', phase: 'test', ...this.goTest() }), false);
      return true;
    }
    if ((m = line.match(RX.goRun))) {
      this.go.running = m[1];
      this.go.orphans = [];
      s.addPhase('test');
      return true;
    }
    if ((m = line.match(RX.goFatal))) {
      this.goOpen(this.goRecord({ code: 'fatal error', kind: 'fatal', message: m[1], runtime: 'go', phase: s.runtimePhase(), ...this.goTest() }), false);
      return true;
    }
    if ((m = line.match(RX.goPanic))) {
      this.goOpen(this.goRecord({ code: 'panic', kind: 'panic', message: m[1], runtime: 'go', phase: s.runtimePhase(), ...this.goTest() }), false);
      return true;
    }
    if (RX.goRace.test(line)) {
      this.goOpen(this.goRecord({ code: 'data-race', kind: 'sanitizer', message: 'WARNING: DATA RACE', runtime: 'go', phase: s.runtimePhase(), ...this.goTest() }), true);
      return true;
    }
    if ((m = line.match(RX.goBuild))) {
      const err = s.record({ code: 'go-build', kind: 'compile-error', message: m[4], runtime: 'go', phase: 'compile' });
      s.setLocation(err, loc(m[1], m[2], m[3]));
      return true;
    }
    if ((m = line.match(RX.goTestFail))) {
      const name = m[1];
      s.countTest('failed');
      const prev = this.go.failed;
      // A parent test's verdict is printed above its failing subtests (and fuzzing repeats the name): one failure.
      const logged = this.goLogs.get(name);
      this.goLogs.delete(name);
      if (prev && !prev.location && (name === prev.test || name.startsWith(`${prev.test}/`))) {
        prev.test = name;
        prev.message = logged?.message ? `${name}: ${logged.message}` : name;
        if (logged) s.setLocation(prev, logged.at);
        this.go.current = prev;
        return true;
      }
      this.go.failed = s.record({ code: 'test-failure', kind: 'test-failure', message: logged?.message ? `${name}: ${logged.message}` : name, runtime: 'go', phase: 'test', test: name });
      if (logged) s.setLocation(this.go.failed, logged.at);
      for (const o of this.go.orphans ?? []) o.test ??= name;
      this.go.orphans = [];
      this.go.current = this.go.failed;
      // A panic or race already reported in this test now knows its test's name.
      this.go.running = name;
      return true;
    }
    // testify prints `x_test.go:12: ` with nothing after it, then an indented `Error Trace:` / `Error:` block.
    if (this.go.current?.kind === 'test-failure' && this.go.current.message === this.go.current.test && (m = line.match(/^\s+Error:\s+(\S.*)$/))) {
      this.go.current.message = `${this.go.current.message}: ${m[1].trim()}`;
      return true;
    }
    if ((m = line.match(RX.goTestLoc))) {
      const cur = this.go.current;
      const text = (m[3] ?? '').trim();
      if (cur?.kind === 'test-failure') {
        if (!cur.location) s.setLocation(cur, loc(m[1], m[2]));
        if (cur.message === cur.test && text) cur.message = `${cur.message}: ${text}`;
        return true;
      }
      // `go test -v` prints a test's t.Errorf lines while it runs, before its `--- FAIL:` verdict.
      if (this.go.running && !this.goLogs.has(this.go.running)) {
        if (this.goLogs.size > 1000) this.goLogs.clear();
        this.goLogs.set(this.go.running, { at: loc(m[1], m[2]), message: text });
      }
      return true;
    }
    if ((m = line.match(RX.goTestPassName))) {
      this.goLogs.delete(m[1]);
      if (/--- PASS/.test(line)) s.countTest('passed');
      return false;
    }
    return false;
  }

  /** The running test's name, or none yet: a race or panic printed before `--- FAIL: X` is named by it. */
  private goTest(): { test?: string } {
    return this.go.running ? { test: this.go.running } : {};
  }

  private goOpen(err: LogError, frames: boolean): void {
    this.go.current = err;
    this.go.frames = frames;
  }

  private goRecord(e: Omit<LogError, 'logLine'>): LogError {
    const err = this.sink.record(e);
    if (!err.test) (this.go.orphans ??= []).push(err);
    return err;
  }
}
