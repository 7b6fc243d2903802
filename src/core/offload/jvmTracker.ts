import { isLibraryPath, isLibrarySymbol } from './frames';
import { loc, type ReportSink } from './sink';
import type { ChainLink, LogError, Runtime } from './types';

/**
 * JVM and .NET stacks and their test runners (Maven surefire, Gradle, `dotnet test`). Both print the final
 * exception first and its causes below (`Caused by:` / `---> Inner`), innermost frame first, and name frames
 * by a qualified symbol, so a frame is the user's when its namespace is not the runtime's or a framework's.
 */
const RX = {
  // `Exception in thread "main" java.lang.IllegalStateException: boom`, `org.opentest4j.AssertionFailedError: …`,
  // `Unhandled exception. System.InvalidOperationException: …`, `Caused by: java.io.IOException: …`.
  exc: /^(\s*)(Caused by: |Unhandled exception\. |Exception in thread "[^"]*" )?((?:[A-Za-z_$][\w$]*\.)+[A-Z][\w$]*(?:Error|Exception|Throwable|Failure|Failed|Fault)[\w$]*)(?:: (.*))?$/,
  innerDotnet: /^\s*---> ((?:[A-Za-z_]\w*\.)+[A-Z]\w*(?:Exception|Error)\w*)(?:: (.*))?$/,
  javaFrame: /^\s+at (?:[\w.$@-]*\/\/?)?([\w$.<>\-]+)\(([^()]*)\)$/,
  dotnetFrame: /^\s+at (.+?) in (.+?):line (\d+)$/,
  more: /^\s+\.\.\. \d+ (?:more|common frames omitted)$/,
  // Test headers.
  surefire: /^(?:\[ERROR\] )?(?:(\S+?)\((\S+?)\)|(\S+)) +(?:--)? *Time elapsed: .*<<< (?:FAILURE|ERROR)!$/,
  gradle: /^(\S+) > (.+) FAILED$/,
  gradleShortCause: /^\s+Caused by: ((?:[a-z_$][\w$]*\.)+[A-Z][\w$]*) at ([\w$]+\.(?:java|kt|scala|groovy)):(\d+)$/,
  gradleShort: /^\s+((?:[a-z_$][\w$]*\.)+[A-Z][\w$]*) at ([\w$]+\.(?:java|kt|scala|groovy)):(\d+)$/,
  dotnetTest: /^\s*Failed (\S+) \[[^\]]*\]$/,
  dotnetMessage: /^\s*Error Message:$/,
  // Compilers.
  javac: /^(?:\[ERROR\] )?(\S+\.(?:java|kt|scala)):(?:\[(\d+),(\d+)\]|(\d+):) ?(?:error: )?(.+)$/,
};

export class JvmTracker {
  private cur: { err: LogError; link: ChainLink; ttl: number; runtime: Runtime; located: WeakSet<ChainLink> } | undefined;
  private test: string | undefined;
  private dotnetMessage: LogError | undefined;
  private causeNext = false;
  private gradleShort: LogError | undefined;

  constructor(private readonly sink: ReportSink) {}

  continue(line: string): boolean {
    let m: RegExpMatchArray | null;
    if (this.dotnetMessage) {
      const err = this.dotnetMessage;
      this.dotnetMessage = undefined;
      err.message = `${err.test}: ${line.trim()}`;
      const t = line.trim().match(/^((?:\w+\.)+\w*(?:Exception|Error))\b/);
      if (t) this.sink.recode(err, t[1].slice(t[1].lastIndexOf('.') + 1));
      this.open(err, err.runtime);
      this.cur!.ttl = 40;
      return true;
    }
    const c = this.cur;
    if (!c) return false;
    if ((m = line.match(RX.dotnetFrame))) {
      this.frame(m[1], loc(m[2], m[3]));
      return true;
    }
    if ((m = line.match(RX.javaFrame))) {
      const at = m[2].match(/^(.+?):(\d+)$/);
      if (at) this.frame(m[1], loc(packagePath(m[1], at[1]), at[2]));
      return true;
    }
    if (RX.more.test(line) || /^\s*(?:Suppressed: |--- End of (?:inner exception )?stack trace)/.test(line)) return true;
    if ((m = line.match(RX.exc)) && (m[2] === 'Caused by: ' || (this.causeNext && !m[2]))) {
      this.causeNext = false;
      this.link(m[3], m[4]);
      return true;
    }
    // Gradle's full exception format puts `Caused by:` on a line of its own, the cause on the next.
    if (/^\s*Caused by:$/.test(line)) {
      this.causeNext = true;
      return true;
    }
    if ((m = line.match(RX.innerDotnet))) {
      this.link(m[1], m[2]);
      return true;
    }
    // `dotnet test` prints the assertion's Expected/Actual lines flush left between "Error Message:" and the stack.
    const dotnetTest = c.runtime === 'dotnet' && c.err.kind === 'test-failure' && !c.located.has(c.link);
    if (--c.ttl <= 0 || (!/^\s/.test(line) && !dotnetTest)) this.close();
    return dotnetTest;
  }

  start(line: string): boolean {
    let m: RegExpMatchArray | null;
    if ((m = line.match(RX.surefire))) {
      this.close();
      this.test = m[3] ?? `${m[2]}.${m[1]}`;
      this.sink.addPhase('test');
      return true;
    }
    if ((m = line.match(RX.gradle))) {
      this.close();
      this.test = `${m[1]} > ${m[2]}`;
      this.sink.addPhase('test');
      return true;
    }
    if ((m = line.match(RX.dotnetTest))) {
      this.close();
      this.test = m[1];
      this.sink.addPhase('test');
      return true;
    }
    if (this.test && RX.dotnetMessage.test(line)) {
      this.dotnetMessage = this.sink.record({ code: 'test-failure', kind: 'test-failure', message: this.test, runtime: 'dotnet', phase: 'test', test: this.test });
      this.test = undefined;
      return true;
    }
    if ((m = line.match(RX.gradleShort))) {
      // Gradle's default test output: the exception and its user frame on one line, no stack.
      const test = this.test;
      this.test = undefined;
      const err = this.sink.record({ code: simpleName(m[1]), kind: test ? 'test-failure' : 'exception', message: m[1], runtime: 'java', phase: 'test', ...(test ? { test } : {}) });
      this.sink.setLocation(err, loc(m[2], m[3]));
      this.gradleShort = err;
      return true;
    }
    if (this.gradleShort && (m = line.match(RX.gradleShortCause))) {
      // The one-line format's causes: `Caused by: pkg.Cause at File.java:N`, one per line, deeper indented.
      const err = this.gradleShort;
      err.chain ??= [{ code: err.code, message: err.message, ...(err.location ? { location: err.location } : {}) }];
      err.chain.push({ code: simpleName(m[1]), message: m[1], location: loc(m[2], m[3]) });
      return true;
    }
    this.gradleShort = undefined;
    if ((m = line.match(RX.javac)) && !/^\s*(?:warning|Note)\b/.test(m[5])) {
      const runtime = m[1].endsWith('.java') ? 'java' : 'unknown';
      const err = this.sink.record({ code: javacCode(m[5]), kind: 'compile-error', message: m[5], runtime, phase: 'compile' });
      this.sink.setLocation(err, loc(m[1], m[2] ?? m[4], m[3]));
      return true;
    }
    if ((m = line.match(RX.exc)) && m[2] !== 'Caused by: ') {
      this.close();
      const type = m[3];
      const runtime: Runtime = /^(?:System|Microsoft)\./.test(type) || m[2] === 'Unhandled exception. ' ? 'dotnet' : 'java';
      const test = this.test;
      this.test = undefined;
      const code = simpleName(type);
      const err = this.sink.record({
        code,
        kind: test ? 'test-failure' : 'exception',
        message: m[4] ? `${type}: ${m[4]}` : type,
        runtime,
        phase: test ? 'test' : this.sink.runtimePhase(),
        ...(test ? { test } : {}),
      });
      this.open(err, runtime);
      return true;
    }
    return false;
  }

  finish(): void {
    this.close();
  }

  private open(err: LogError, runtime: Runtime): void {
    this.cur = { err, link: { code: err.code, message: err.message }, ttl: 200, runtime, located: new WeakSet() };
  }

  private link(type: string, message: string | undefined): void {
    const c = this.cur!;
    const link: ChainLink = { code: simpleName(type), message: message ? `${type}: ${message}` : type };
    if (!c.err.chain) c.err.chain = [c.link];
    c.err.chain.push(link);
    c.link = link;
  }

  private frame(symbol: string, l: { file: string; line: number }): void {
    const c = this.cur!;
    c.ttl = 200;
    this.sink.evidence[c.runtime === 'dotnet' ? 'dotnet' : 'java']++;
    if (c.located.has(c.link) || isLibrarySymbol(symbol) || isLibraryPath(l.file)) return;
    c.link.location = l;
    c.located.add(c.link);
  }

  private close(): void {
    this.causeNext = false;
    const c = this.cur;
    if (!c) return;
    this.cur = undefined;
    const first = c.err.chain?.[0] ?? c.link;
    if (first.location) this.sink.setLocation(c.err, first.location);
  }
}

function javacCode(message: string): string {
  if (/cannot find symbol|Unresolved reference/.test(message)) return 'cannot-find-symbol';
  if (/incompatible types|type mismatch/i.test(message)) return 'type-mismatch';
  if (/expected$|illegal start/.test(message)) return 'syntax-error';
  return 'javac-error';
}

/** `com.acme.InvoiceParser$ParseException` → `ParseException` (a nested class is named by its own name). */
function simpleName(type: string): string {
  return type.slice(Math.max(type.lastIndexOf('.'), type.lastIndexOf('$')) + 1);
}

/**
 * A JVM frame names only the file's base name; its class's package says where it lives:
 * `com.acme.App.load` in `App.java` → `com/acme/App.java` (the suffix of the real path the agent opens).
 */
function packagePath(symbol: string, file: string): string {
  if (file.includes('/')) return file;
  const parts = symbol.split('.');
  const pkg: string[] = [];
  for (const p of parts) {
    if (!/^[a-z_][\w]*$/.test(p)) break;
    pkg.push(p);
  }
  return pkg.length && pkg.length < parts.length ? `${pkg.join('/')}/${file}` : file;
}
