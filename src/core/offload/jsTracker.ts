import { isLibraryPath } from './frames';
import { loc, type ReportSink } from './sink';
import type { ChainLink, Location, LogError } from './types';

/**
 * JavaScript / TypeScript runtimes and test runners: Node's uncaught errors (with `[cause]:` chains), and the
 * failure reports of node:test (spec, dot, TAP), mocha, jest and vitest. Every runner prints the same two
 * things — a header naming the failing test, then an error line and its V8 stack (innermost first) — only
 * with different decorations, so one grammar of headers, error lines and frames covers them all.
 */
const RX = {
  // `TypeError: x`, `AssertionError [ERR_ASSERTION]: x`, `Uncaught Error: x`; indented under a test header.
  err: /^(\s*)(?:Uncaught )?((?:[A-Z][A-Za-z0-9]*)?(?:Error|Exception)|UnhandledPromiseRejection)(?: \[([A-Za-z_0-9]+)\])?(?:: (.*))?$/,
  bracketErr: /^\[((?:[A-Z][A-Za-z0-9]*)?(?:Error|Exception)): (.*)\](?: \{)?$/,
  causeBody: /^\s*((?:[A-Z][A-Za-z0-9]*)?(?:Error|Exception))(?: \[([A-Za-z_0-9]+)\])?(?:: (.*))?$/,
  cause: /^\s*(?:\[cause\]|Caused by): (?:\[?((?:[A-Z][A-Za-z0-9]*)?(?:Error|Exception))\]?(?: \[([A-Za-z_0-9]+)\])?)(?:: (.*))?$/,
  // V8: `    at fn (file:1:2)`, `    at file:1:2`; vitest: ` ❯ fn file:1:2`, ` ❯ file:1:2`.
  frame: /^\s+at (?:(?:async )?(.+?) \()?(.+?):(\d+):(\d+)\)?$/,
  vitestFrame: /^\s*❯ (?:(\S+) )?(\S+?):(\d+):(\d+)$/,
  throwSite: /^((?:file:\/\/)?\/\S+|[A-Za-z]:\\\S+|\S+\.[cm]?[jt]sx?):(\d+)$/,
  code: /^\s+code: '([A-Z_0-9]+)'/,
  // Test headers.
  nodeTest: /^\s*✖ (.+?)(?: \([\d.]+m?s\))?$/,
  mocha: /^\s{1,4}(\d+)\) (.+?)(:?)$/,
  mochaMore: /^\s{4,}(\S.*?)(:?)$/,
  jest: /^\s*● (.+)$/,
  vitest: /^\s*(?:FAIL|×|✗)\s+(.+? > .+?)(?:\s+\d+ms)?$/,
  vitestFile: /^\s*FAIL\s+(\S+\.[cm]?[jt]sx?)(?:\s+\[.*\])?$/,
  tapNotOk: /^\s*not ok \d+(?: -)? (.+?)(?: # .*)?$/,
  // node:test TAP YAML diagnostics under a `not ok`.
  tapLocation: /^\s+location: '(.+):(\d+):(\d+)'$/,
  tapName: /^\s+name: '(\w+)'$/,
  tapCode: /^\s+code: '([A-Z_0-9]+)'$/,
  tapErrorStart: /^\s+error: (?:\|-|'(.*)'|"(.*)")$/,
  tapStackFrame: /^\s+(?:.+? \()?((?:file:\/\/)?\/[^\s()]+|[A-Za-z]:\\[^\s()]+|node:[^\s()]+):(\d+):(\d+)\)?$/,
  tapEnd: /^\s+\.\.\.$/,
  // Lines that end whatever report is open.
  closer: /^(?:Node\.js v\d+|ℹ (?:tests|pass|fail) \d+|Tests:\s|\s*Test Files\s|\s*Tests\s+\d|\s+\d+ (?:passing|failing)|⎯{3,}|# (?:tests|pass|fail) \d+)/,
  thrown: /^\s*thrown: (.+)$/,
  jestMatcher: /^\s*(expect\(.*|Expected.*|Received.*)$/,
};

/** Failing test names remembered to spot a runner's repeated report (bounded memory on any log). */
const MAX_TRACKED_TESTS = 2000;

/** How many lines an open error waits for its first frame before it is closed. */
const FRAME_WINDOW = 60;

export class JsTracker {
  private test: { name?: string; mochaOpen?: boolean; jest?: boolean; suiteError?: boolean } = {};
  private readonly seenTests = new Set<string>();
  private causeNext = false;
  private members = false;
  /** Links whose location is a user stack frame (it then beats the throw-site fallback and later frames). */
  private readonly userFramed = new WeakSet<ChainLink>();
  private cur: { err: LogError; link: ChainLink; ttl: number; sawFrame: boolean; counted: boolean } | undefined;
  private throwSite: { at: Location; ttl: number } | undefined;
  private tap: { err?: LogError; wantMessage: boolean; name: string; declared?: Location } = { wantMessage: false, name: '' };

  constructor(private readonly sink: ReportSink) {}

  /** True when the line belongs to an open report. */
  continue(line: string): boolean {
    if (this.tap.err && this.continueTap(line)) return true;
    let m: RegExpMatchArray | null;
    if (this.test.mochaOpen && (m = line.match(RX.mochaMore)) && !RX.err.test(line)) {
      // `1) Suite` / `#method()` / `test title:` — the title is the line ending with ':'.
      this.test.name = `${this.test.name} ${m[1]}`;
      if (m[2]) this.test.mochaOpen = false;
      return true;
    }
    this.test.mochaOpen = false;
    const c = this.cur;
    if (!c) return false;
    if ((m = line.match(RX.frame)) || (m = line.match(RX.vitestFrame))) {
      this.frame(loc(m[2], m[3], m[4]));
      return true;
    }
    if ((m = line.match(RX.cause)) || (this.causeNext && (m = line.match(RX.causeBody)))) {
      this.causeNext = false;
      const link: ChainLink = { code: m[2] ?? m[1], message: `${m[1]}: ${m[3] ?? ''}`.replace(/: $/, '') };
      this.chainOf(c.err).push(link);
      c.link = link;
      c.ttl = FRAME_WINDOW;
      return true;
    }
    // jest prints `Cause:` on its own line and the cause below it.
    if (/^\s*Cause:$/.test(line)) {
      this.causeNext = true;
      return true;
    }
    // An AggregateError lists its members under `[errors]: [`: each is a link after the aggregate.
    if (/^\s*\[errors\]: \[$/.test(line)) {
      this.members = true;
      return true;
    }
    if (this.members && (m = line.match(RX.causeBody))) {
      const link: ChainLink = { code: m[2] ?? m[1], message: `${m[1]}: ${m[3] ?? ''}`.replace(/: $/, '') };
      this.chainOf(c.err).push(link);
      c.link = link;
      c.ttl = FRAME_WINDOW;
      return true;
    }
    if ((m = line.match(RX.code))) {
      if (m[1] === 'ERR_UNHANDLED_REJECTION') c.err.kind = 'unhandled-rejection';
      if (c.err.code === 'Error') this.recode(c.err, m[1]);
      return true;
    }
    if (RX.closer.test(line) || --c.ttl <= 0) this.close();
    return false;
  }

  /** Lines that open a report. True when consumed. */
  start(line: string): boolean {
    let m: RegExpMatchArray | null;
    if (RX.closer.test(line)) {
      // The runner's summary: no test is running any more (an indented `Error:` below it is not a failure).
      this.close();
      this.test = {};
      return false;
    }
    if ((m = line.match(RX.tapNotOk))) {
      this.settleTap();
      this.close();
      const err = this.sink.record({ code: 'test-failure', kind: 'test-failure', message: m[1], runtime: 'javascript', phase: 'test', test: m[1] });
      this.tap = { err, wantMessage: false, name: m[1] };
      return true;
    }
    if ((m = line.match(RX.vitest)) || (m = line.match(RX.vitestFile))) return this.header(testOf(m[1]), { suiteError: !m[1].includes(' > ') });
    if ((m = line.match(RX.nodeTest)) && !/^failing tests:?$/.test(m[1])) return this.header(m[1]);
    if ((m = line.match(RX.jest)) && !/^Console$/.test(m[1])) return this.header(m[1], { jest: true, suiteError: /^Test suite failed to run$/.test(m[1]) });
    if ((m = line.match(RX.mocha)) && !/^\s*\d+\) .*\d+ms\)$/.test(line)) {
      this.header(m[2]);
      this.test.mochaOpen = !m[3];
      return true;
    }
    if ((m = line.match(RX.throwSite))) {
      this.throwSite = { at: loc(m[1], m[2]), ttl: 6 };
      return true;
    }
    if ((m = line.match(RX.err)) && (!m[1] || this.test.name)) {
      this.error(m[2], m[3], m[4] ?? '');
      return true;
    }
    if ((m = line.match(RX.bracketErr))) {
      // Node prints an error without a stack of its own in brackets: `[AggregateError: All promises were rejected] {`.
      this.error(m[1], undefined, m[2]);
      return true;
    }
    if (this.test.name && !this.cur && (m = line.match(RX.thrown))) {
      // A test that threw a non-Error value (jest prints a timeout this way too).
      this.error(/Exceeded timeout/.test(m[1]) ? 'timeout' : 'thrown', undefined, m[1].replace(/^"|"$/g, ''));
      return true;
    }
    if (this.test.jest && this.test.name && !this.cur) {
      // jest prints the error's message first, without `Error:` for a plain Error, and a matcher failure as the
      // matcher call: the first line under a `●` header is the error whatever its shape.
      if ((m = line.match(RX.jestMatcher))) this.error('AssertionError', undefined, m[1].trim());
      else this.error('Error', undefined, line.trim());
      return true;
    }
    if (this.throwSite && --this.throwSite.ttl <= 0) this.throwSite = undefined;
    return false;
  }

  finish(): void {
    this.settleTap();
    this.close();
  }

  onBlank(): void {
    // A bare uncaught error ends at the blank line after its stack; a test report's diff has blank lines inside.
    if (this.cur && !this.test.name && this.cur.sawFrame) this.close();
  }

  private header(name: string, opts: { jest?: boolean; suiteError?: boolean } = {}): boolean {
    this.close();
    this.test = { name, ...opts };
    this.sink.addPhase('test');
    return true;
  }

  private error(type: string, bracket: string | undefined, message: string): void {
    this.close();
    const rejection = type === 'UnhandledPromiseRejection';
    const code = rejection ? 'ERR_UNHANDLED_REJECTION' : type === 'Error' && bracket ? bracket : type;
    const name = this.test.name;
    const inTest = name !== undefined;
    const text = `${type}${bracket && code !== bracket ? ` [${bracket}]` : ''}${message ? `: ${message}` : ''}`;
    const fields = {
      code,
      kind: inTest ? (this.test.suiteError ? 'setup-error' : 'test-failure') : rejection ? 'unhandled-rejection' : 'uncaught',
      message: text,
      // `ValueError: x` printed by a Python logger looks the same: only a throw site, a test runner or a
      // following `at` frame makes it JavaScript.
      runtime: inTest || rejection || this.throwSite || this.sink.evidence.javascript > 0 ? 'javascript' : 'unknown',
      phase: inTest ? 'test' : this.sink.runtimePhase(),
      // A suite that failed to load names a file, not a test.
      ...(name && !this.test.suiteError ? { test: name } : {}),
    } as const;
    // A runner that repeats a failure in its summary (node:test spec, vitest, mocha) is counted once.
    const repeat = name !== undefined && this.seenTests.has(name);
    const err: LogError = repeat ? { ...fields, logLine: 0 } : this.sink.record(fields);
    if (name) {
      // Bounded like the rest of the analysis: a run with more failures than this may count a repeat twice.
      if (this.seenTests.size >= MAX_TRACKED_TESTS) this.seenTests.clear();
      this.seenTests.add(name);
    }
    const link: ChainLink = { code, message: text };
    this.cur = { err, link, ttl: FRAME_WINDOW, sawFrame: false, counted: !repeat };
    if (!repeat && this.throwSite && !isLibraryPath(this.throwSite.at.file)) link.location = this.throwSite.at;
    this.throwSite = undefined;
    // A jest matcher header only has one error; later lines are diff and excerpt.
    if (this.test.jest) this.test.jest = false;
  }

  private frame(l: Location): void {
    const c = this.cur!;
    c.sawFrame = true;
    c.ttl = FRAME_WINDOW;
    this.sink.evidence.javascript++;
    if (c.err.runtime === 'unknown') c.err.runtime = 'javascript';
    if (isLibraryPath(l.file)) return;
    // The first user frame of a link wins over the throw site printed above the message (that may be a
    // library's own source line).
    if (!this.userFramed.has(c.link)) {
      c.link.location = l;
      this.userFramed.add(c.link);
    }
  }

  private chainOf(err: LogError): ChainLink[] {
    if (!err.chain) err.chain = [this.cur!.link];
    return err.chain;
  }

  private close(): void {
    this.causeNext = false;
    this.members = false;
    const c = this.cur;
    if (!c) return;
    this.cur = undefined;
    if (!c.counted) return;
    // `Error: Process completed with exit code 1.` (CI), `Error: ENOENT …` from a CLI: a line shaped like a
    // JavaScript error, with no stack, no throw site and no test around it, is a symptom, not a crash.
    if (c.err.kind === 'uncaught' && !c.sawFrame && !c.link.location) c.err.kind = 'build-failure';
    // The error's own user frame; an error printed without a stack (an aggregate) roots at its first located link.
    const first = c.err.chain?.[0] ?? c.link;
    const at = first.location ?? c.err.chain?.find((l) => l.location)?.location;
    if (at) this.sink.setLocation(c.err, at);
  }

  private recode(err: LogError, code: string): void {
    if (err.logLine > 0) this.sink.recode(err, code);
    else err.code = code;
  }

  private continueTap(line: string): boolean {
    const cur = this.tap.err!;
    let m: RegExpMatchArray | null;
    if (this.tap.wantMessage) {
      this.tap.wantMessage = false;
      cur.message = `${this.tap.name}: ${line.trim()}`;
      return true;
    }
    if ((m = line.match(RX.tapErrorStart))) {
      if (m[1] ?? m[2]) cur.message = `${this.tap.name}: ${m[1] ?? m[2]}`;
      else this.tap.wantMessage = true;
      return true;
    }
    if ((m = line.match(RX.tapName))) {
      this.sink.recode(cur, m[1]);
      return true;
    }
    if ((m = line.match(RX.tapCode))) return true;
    if ((m = line.match(RX.tapLocation))) {
      this.tap.declared = loc(m[1], m[2], m[3]);
      return true;
    }
    if ((m = line.match(RX.tapStackFrame))) {
      const l = loc(m[1], m[2], m[3]);
      if (!cur.location && !isLibraryPath(l.file)) this.sink.setLocation(cur, l);
      return true;
    }
    if (RX.tapEnd.test(line)) {
      this.settleTap();
      return true;
    }
    // mocha's and tape's TAP put the error and its V8 stack under `not ok`, indented, without YAML.
    if ((m = line.match(RX.err)) && m[1]) {
      const code = m[2] === 'Error' && m[3] ? m[3] : m[2];
      if (cur.code === 'test-failure') this.sink.recode(cur, code);
      cur.message = `${this.tap.name}: ${m[2]}${m[4] ? `: ${m[4]}` : ''}`;
      return true;
    }
    if ((m = line.match(RX.frame))) {
      const l = loc(m[2], m[3], m[4]);
      if (!cur.location && !isLibraryPath(l.file)) this.sink.setLocation(cur, l);
      return true;
    }
    return false;
  }

  /** A TAP failure without a user stack frame falls back to where the test is declared. */
  private settleTap(): void {
    const cur = this.tap.err;
    if (cur && !cur.location && this.tap.declared) this.sink.setLocation(cur, this.tap.declared);
    this.tap = { wantMessage: false, name: '' };
  }
}

/** vitest names a test `file > suite > test`; the file is a location, not part of the name. */
function testOf(s: string): string {
  const parts = s.split(' > ');
  return parts.length > 1 && /[\\/.]/.test(parts[0]) && !/\s/.test(parts[0]) ? parts.slice(1).join(' > ') : s;
}
