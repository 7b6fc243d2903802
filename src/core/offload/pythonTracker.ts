import { isLibraryPath } from './frames';
import { loc, type ReportSink } from './sink';
import type { ChainLink, Location, LogError } from './types';

const RX = {
  traceback: /^(?:Exception Group )?Traceback \(most recent call last\):$/,
  frame: /^\s+File "(.+?)", line (\d+)(?:, in (.+))?$/,
  bareFrame: /^ {2}File "(.+?\.py)", line (\d+)$/,
  exc: /^([A-Za-z_][\w.]*)(?:: (.*))?$/,
  chain: /^(?:The above exception was the direct cause of the following exception:|During handling of the above exception, another exception occurred:)$/,
  // ExceptionGroup tracebacks draw a tree: `  + Exception Group Traceback`, `  | …`, `  +-+---- 1 ----`.
  groupPrefix: /^\s*[|+] ?/,
  groupStart: /^\s*\+ Exception Group Traceback \(most recent call last\):$/,
  groupSeparator: /^\s*\+(?:-\+)?-+(?: \d+ -+| \.\.\. -+)?$/,
  section: /^=+ (FAILURES|ERRORS) =+$/,
  otherSection: /^=+ (short test summary info|warnings summary|.*\bpassed\b.*|.*\bfailed\b.*|.*\berrors?\b.*) =+$/,
  header: /^_{3,} (.+?) _{3,}$/,
  e: /^E\s+(.+)$/,
  // `tests/t.py:10: in test_x` (--tb=short, long), `tests/t.py:10: AssertionError` (long),
  // `/abs/tests/t.py:10: AssertionError: assert 1 == 2` (--tb=line).
  loc: /^(\S+\.py):(\d+): (?:in (\S+)|([A-Za-z_][\w.]*)(?:: (.*))?)$/,
  summaryItem: /^(FAILED|ERROR) (\S+?)(?: - (.*))?$/,
  excType: /^([A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt|Failed|Failure|Group))(?:: (.*))?$/,
  unittestHeader: /^(FAIL|ERROR): (\S+) \((.+)\)$/,
};

/** Failures remembered so the short summary can name them (bounded memory on any log). */
const MAX_TRACKED_TESTS = 2000;

interface Entry {
  err: LogError;
  links: ChainLink[];
  sawE: boolean;
}

/**
 * Python tracebacks (chained ones and ExceptionGroups included), unittest and pytest reports. Python prints
 * the innermost frame last, so a traceback's root is its last frame in user code; a chain prints its first
 * cause first and the exception the program died with last — the analysis turns that around (final first).
 */
export class PythonTracker {
  private tb: { active: boolean; lastUser?: Location; lastAny?: Location } = { active: false };
  /** The error a chain connector or an ExceptionGroup member adds its next exception to. */
  private chainInto: LogError | undefined;
  private chainNext = false;
  private group = { active: false, into: undefined as LogError | undefined };
  private pendingTest: { name: string; kind: 'test-failure' | 'setup-error' } | undefined;
  private pytest: { section?: 'FAILURES' | 'ERRORS'; entry?: Entry } = {};
  private readonly byTest = new Map<string, LogError>();
  /** --tb=line failures: named later by the short summary, matched on their file. */
  private readonly unnamed: LogError[] = [];

  constructor(private readonly sink: ReportSink) {}

  /** ExceptionGroup tree decorations removed, so the lines inside read as ordinary tracebacks. */
  normalise(line: string): string {
    if (!this.group.active) {
      if (!RX.groupStart.test(line)) return line;
      this.group = { active: true, into: undefined };
    }
    if (RX.groupSeparator.test(line)) return '';
    if (RX.groupPrefix.test(line)) return line.replace(RX.groupPrefix, '');
    this.group = { active: false, into: undefined };
    return line;
  }

  /** Lines inside an open traceback or pytest section. True when consumed. */
  continue(line: string): boolean {
    let m: RegExpMatchArray | null;
    if (this.tb.active) {
      if ((m = line.match(RX.frame))) {
        const l = loc(m[1], m[2]);
        this.tb.lastAny = l;
        if (!isLibraryPath(l.file)) this.tb.lastUser = l;
        this.sink.evidence.python++;
        return true;
      }
      if (/^\s/.test(line)) return true; // source excerpt and caret lines
      this.tb.active = false;
      const ex = line.match(RX.exc);
      if (ex) {
        this.exception(ex[1], ex[2] ?? '');
        return true;
      }
    }
    if (!this.pytest.section) return false;
    if ((m = line.match(RX.section))) {
      this.closeEntry();
      this.pytest = { section: m[1] as 'FAILURES' | 'ERRORS' };
      return true;
    }
    if (RX.otherSection.test(line)) {
      this.closeEntry();
      this.pytest = {};
      return false; // the caller also reads the summary line
    }
    if ((m = line.match(RX.header))) {
      this.closeEntry();
      const setup = this.pytest.section === 'ERRORS';
      // A collection error belongs to a module, not to a test.
      const collecting = /^ERROR collecting /.test(m[1]);
      const name = m[1].replace(/^ERROR (?:at|collecting) (?:setup of |teardown of )?/, '');
      const err = this.sink.record({ code: 'AssertionError', kind: setup ? 'setup-error' : 'test-failure', message: m[1], runtime: 'python', phase: 'test', ...(collecting ? {} : { test: name }) });
      this.remember(name, err);
      this.pytest.entry = { err, links: [{ code: 'AssertionError', message: m[1] }], sawE: false };
      return true;
    }
    if (RX.chain.test(line) && this.pytest.entry) {
      const e = this.pytest.entry;
      e.links.push({ code: 'AssertionError', message: '' });
      e.sawE = false;
      return true;
    }
    if ((m = line.match(RX.loc)) && !this.pytest.entry) {
      // --tb=line: one line per failure, no header.
      const code = short(m[4] ?? 'AssertionError');
      const setup = this.pytest.section === 'ERRORS';
      const err = this.sink.record({ code, kind: setup ? 'setup-error' : 'test-failure', message: m[5] ? `${m[4]}: ${m[5]}` : code, runtime: 'python', phase: 'test' });
      this.sink.setLocation(err, loc(m[1], m[2]));
      if (this.unnamed.length >= MAX_TRACKED_TESTS) this.unnamed.shift();
      this.unnamed.push(err);
      return true;
    }
    const e = this.pytest.entry;
    if (!e) return true;
    const link = e.links[e.links.length - 1];
    if ((m = line.match(RX.e))) {
      if (!e.sawE) {
        link.message = m[1];
        const t = m[1].match(RX.excType);
        if (t) link.code = short(t[1]);
      }
      e.sawE = true;
    } else if ((m = line.match(RX.loc)) || (m = line.match(RX.frame))) {
      // Entries run outermost → innermost (`--tb=native` prints a plain traceback); the last user frame wins.
      const l = loc(m[1], m[2]);
      if (!isLibraryPath(l.file) || !link.location) link.location = l;
      if (m[4] && RX.loc.test(line)) link.code = short(m[4]);
    } else if ((m = line.match(/^\[XPASS\(strict\)\] ?(.*)$/))) {
      // A strict xfail that passed: no traceback, the reason is the message.
      link.code = 'XPASS(strict)';
      link.message = line.trim();
    } else if (!e.sawE && (m = line.match(RX.excType))) {
      link.code = short(m[1]);
      link.message = m[2] ? `${m[1]}: ${m[2]}` : m[1];
    }
    return true;
  }

  /** Lines that open a traceback, a chain link or a pytest section. True when consumed. */
  start(line: string): boolean {
    let m: RegExpMatchArray | null;
    // A SyntaxError in the script Python was asked to run is printed without a "Traceback" header.
    if ((m = line.match(RX.bareFrame))) {
      this.tb = { active: true };
      const l = loc(m[1], m[2]);
      this.tb.lastAny = l;
      if (!isLibraryPath(l.file)) this.tb.lastUser = l;
      this.sink.addPhase(this.sink.runtimePhase());
      return true;
    }
    if (RX.traceback.test(line)) {
      if (line.startsWith('Exception Group')) this.group = { active: true, into: this.group.into };
      this.tb = { active: true };
      this.sink.addPhase(this.sink.runtimePhase());
      return true;
    }
    if (RX.chain.test(line)) {
      this.chainNext = true;
      return true;
    }
    if ((m = line.match(RX.section))) {
      this.closeEntry();
      this.pytest = { section: m[1] as 'FAILURES' | 'ERRORS' };
      this.sink.addPhase('test');
      return true;
    }
    if ((m = line.match(RX.unittestHeader))) {
      // The traceback that follows carries the exception; the header names the test.
      this.pendingTest = { name: `${m[2]} (${m[3]})`, kind: 'test-failure' };
      this.sink.addPhase('test');
      return true;
    }
    if ((m = line.match(RX.summaryItem)) && m[2].includes('::')) {
      this.summaryItem(m[1], m[2], m[3]);
      return true;
    }
    return false;
  }

  finish(): void {
    this.closeEntry();
  }

  private remember(name: string, err: LogError): void {
    if (this.byTest.size >= MAX_TRACKED_TESTS) this.byTest.clear();
    this.byTest.set(name, err);
  }

  /** `FAILED tests/t.py::test_x - AssertionError: …`: names the test fully, or reports it when no entry did. */
  private summaryItem(kind: string, nodeId: string, detail: string | undefined): void {
    const name = nodeId.slice(nodeId.lastIndexOf('::') + 2);
    const file = nodeId.slice(0, nodeId.indexOf('::'));
    const kindOf = kind === 'ERROR' ? 'setup-error' : 'test-failure';
    const i = this.unnamed.findIndex((e) => e.kind === kindOf && !!e.location && (e.location.file === file || e.location.file.endsWith(`/${file}`)));
    // A test in a class is `TestCart.test_total` in the entry header and `TestCart::test_total` in the summary.
    const dotted = nodeId.slice(file.length + 2).replace(/::/g, '.');
    const known = this.byTest.get(name) ?? this.byTest.get(dotted) ?? this.byTest.get(nodeId) ?? (i >= 0 ? this.unnamed.splice(i, 1)[0] : undefined);
    if (known) {
      known.test = nodeId;
      return;
    }
    const t = detail?.match(RX.excType);
    const code = t ? short(t[1]) : kind === 'ERROR' ? 'test-error' : 'AssertionError';
    const err = this.sink.record({ code, kind: kindOf, message: detail ?? nodeId, runtime: 'python', phase: 'test', test: nodeId });
    this.remember(nodeId, err);
  }

  private closeEntry(): void {
    const e = this.pytest.entry;
    if (!e) return;
    this.pytest.entry = undefined;
    const links = e.links.filter((l) => l.message || l.location).reverse(); // final first
    const final = links[0];
    if (!final) return;
    this.sink.recode(e.err, final.code);
    if (final.message) e.err.message = `${e.err.test ?? e.err.message}: ${final.message}`;
    if (final.location) this.sink.setLocation(e.err, final.location);
    if (links.length > 1) e.err.chain = links;
  }

  private exception(name: string, message: string): void {
    const code = short(name);
    const text = message ? `${name}: ${message}` : name;
    const where = this.tb.lastUser ?? this.tb.lastAny;
    const link: ChainLink = { code, message: text, ...(where ? { location: where } : {}) };
    const into = this.chainNext ? this.chainInto : this.group.active && this.group.into ? this.group.into : undefined;
    this.chainNext = false;
    if (into) {
      if (into === this.group.into) {
        // A group member: listed after the group, which stays the reported exception.
        into.chain = [...(into.chain ?? [selfLink(into)]), link];
        return;
      }
      // The exception printed last is the one the program died with: it becomes the reported error.
      into.chain = [link, ...(into.chain ?? [selfLink(into)])];
      this.sink.recode(into, code);
      into.message = text;
      if (where) this.sink.setLocation(into, where);
      else delete into.location;
      return;
    }
    const test = this.pendingTest;
    this.pendingTest = undefined;
    const err = this.sink.record({
      code,
      kind: test ? test.kind : 'exception',
      message: text,
      runtime: 'python',
      phase: test ? 'test' : this.sink.runtimePhase(),
      ...(test ? { test: test.name } : {}),
    });
    if (where) this.sink.setLocation(err, where);
    this.chainInto = err;
    if (this.group.active && /ExceptionGroup$/.test(code)) this.group.into = err;
  }
}

function short(name: string): string {
  return name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : name;
}

function selfLink(err: LogError): ChainLink {
  return { code: err.code, message: err.message, ...(err.location ? { location: err.location } : {}) };
}
