import { isLibraryPath } from './frames';
import { RX } from './patterns';
import { loc, type ReportSink } from './sink';
import type { Location, LogError } from './types';

/**
 * Python tracebacks (including chained ones) and pytest's FAILURES section. Python prints the innermost frame
 * last, so the root is the last frame in user code; a chain keeps its first exception as the cause.
 */
export class PythonTracker {
  private tb: { active: boolean; lastUser?: Location; lastAny?: Location } = { active: false };
  private chainInto: LogError | undefined;
  private chainNext = false;
  private pytest: { inFailures: boolean; current?: LogError; sawE?: boolean } = { inFailures: false };

  constructor(private readonly sink: ReportSink) {}

  /** Lines inside an open traceback or pytest failure. True when consumed. */
  continue(line: string): boolean {
    let m: RegExpMatchArray | null;
    if (this.tb.active) {
      if ((m = line.match(RX.pyFrame))) {
        const l = loc(m[1], m[2]);
        this.tb.lastAny = l;
        if (!isLibraryPath(l.file)) this.tb.lastUser = l;
        this.sink.evidence.python++;
        return true;
      }
      if (/^\s/.test(line)) return true; // source excerpt and caret lines
      this.tb.active = false;
      const ex = line.match(RX.pyExc);
      if (ex) {
        this.exception(ex[1], ex[2] ?? '');
        return true;
      }
    }
    if (!this.pytest.inFailures) return false;
    if (RX.pytestOtherSection.test(line) || RX.pytestSummary.test(line)) {
      this.pytest = { inFailures: false };
      return false; // the summary line is also counted by the caller
    }
    if ((m = line.match(RX.pytestHeader))) {
      this.pytest.current = this.sink.record({ code: 'AssertionError', kind: 'test-failure', message: m[1], runtime: 'python', phase: 'test' });
      this.pytest.sawE = false;
      return true;
    }
    const cur = this.pytest.current;
    if (!cur) return false;
    if ((m = line.match(RX.pytestE))) {
      if (!this.pytest.sawE) cur.message = `${cur.message}: ${m[1]}`;
      this.pytest.sawE = true;
    } else if ((m = line.match(RX.pytestLoc))) {
      // Entries run outermost → innermost; the last one in user code wins.
      const l = loc(m[1], m[2]);
      if (!isLibraryPath(l.file) || !cur.location) this.sink.setLocation(cur, l);
      if (m[3]) this.sink.recode(cur, m[3]);
    }
    return true;
  }

  /** Lines that open a traceback, a chain link or pytest's failure section. True when consumed. */
  start(line: string): boolean {
    if (RX.pyTraceback.test(line)) {
      this.tb = { active: true };
      this.sink.addPhase(this.sink.runtimePhase());
      return true;
    }
    if (RX.pyChain.test(line)) {
      this.chainNext = true;
      return true;
    }
    if (RX.pytestSection.test(line)) {
      this.pytest = { inFailures: true };
      this.sink.addPhase('test');
      return true;
    }
    return false;
  }

  private exception(name: string, message: string): void {
    const short = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : name;
    const into = this.chainNext ? this.chainInto : undefined;
    this.chainNext = false;
    if (into) {
      // Keep the first exception as the cause: a handler failing afterwards is a second symptom of the same fault.
      into.chain = [...(into.chain ?? [into.code]), short];
      return;
    }
    const err = this.sink.record({ code: short, kind: 'exception', message: message ? `${name}: ${message}` : name, runtime: 'python', phase: this.sink.runtimePhase() });
    const l = this.tb.lastUser ?? this.tb.lastAny;
    if (l) this.sink.setLocation(err, l);
    this.chainInto = err;
  }
}
