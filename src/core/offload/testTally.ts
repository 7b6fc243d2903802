import { RX } from './patterns';

/**
 * Pass / fail counts of test runners. A runner's summary line (pytest, cargo, jest, mocha, TAP, unittest) is
 * authoritative: once one is seen, per-test lines (`--- FAIL:`, `--- PASS:`) stop counting.
 */
export class TestTally {
  failed = 0;
  passed = 0;
  private fromSummary = false;

  perTest(outcome: 'failed' | 'passed'): void {
    if (!this.fromSummary) this[outcome]++;
  }

  /** Reads a summary line; returns true when the line was one (the caller marks the test phase). */
  summary(line: string): boolean {
    let m: RegExpMatchArray | null;
    if ((m = line.match(RX.pytestSummary)) && /^(?:\d+ \w+(?:, |$))+/.test(m[1]) && /\b(passed|failed)\b/.test(m[1])) {
      this.set(Number(m[1].match(/(\d+) failed/)?.[1] ?? 0) + Number(m[1].match(/(\d+) errors?/)?.[1] ?? 0), Number(m[1].match(/(\d+) passed/)?.[1] ?? 0));
    } else if ((m = line.match(RX.cargoTestResult))) this.set(Number(m[2]), Number(m[1]));
    else if ((m = line.match(RX.jestTests))) this.set(Number(m[1] ?? 0), Number(m[2] ?? 0));
    else if ((m = line.match(RX.vitestTests))) this.set(Number(m[1] ?? 0), Number(m[2] ?? 0));
    else if ((m = line.match(RX.nodeSpecCount))) this.set(m[1] === 'fail' ? Number(m[2]) : 0, m[1] === 'pass' ? Number(m[2]) : 0);
    else if ((m = line.match(RX.mavenTests))) this.set(Number(m[2]) + Number(m[3]), Number(m[1]) - Number(m[2]) - Number(m[3]) - Number(m[4]), true);
    else if ((m = line.match(RX.dotnetTests))) this.set(Number(m[1]), Number(m[2]));
    else if ((m = line.match(RX.nextestSummary))) this.set(Number(m[2] ?? 0), Number(m[1]));
    else if ((m = line.match(RX.mochaPassing))) this.set(0, Number(m[1]));
    else if ((m = line.match(RX.mochaFailing))) this.set(Number(m[1]), 0);
    else if ((m = line.match(RX.tapCount))) this.set(m[1] === 'fail' ? Number(m[2]) : 0, m[1] === 'pass' ? Number(m[2]) : 0);
    else if ((m = line.match(RX.unittestRan))) this.set(0, Number(m[1]));
    else if ((m = line.match(RX.unittestFailed))) {
      // unittest prints "Ran N tests" first, then "FAILED (failures=F, errors=E)": move F+E from passed to failed.
      const f = Number(m[1].match(/failures=(\d+)/)?.[1] ?? 0) + Number(m[1].match(/errors=(\d+)/)?.[1] ?? 0);
      this.failed += f;
      this.passed = Math.max(0, this.passed - f);
    } else return false;
    return true;
  }

  /** `replace`: a runner that prints a per-class line and a grand total (Maven) — the last line read is the total. */
  private set(failed: number, passed: number, replace = false): void {
    if (!this.fromSummary || replace) {
      this.failed = 0;
      this.passed = 0;
    }
    this.fromSummary = true;
    this.failed += failed;
    this.passed += passed;
  }
}
