/**
 * The line patterns the analyzer recognises, one block per tool. They run on ANSI-stripped lines cut to
 * MAX_ANALYSED_CHARS, so none of them can be fed a megabyte. Patterns are anchored and free of nested
 * quantifiers over the same characters, so they stay linear on junk input.
 */
export const MAX_ANALYSED_CHARS = 4096;

export const RX = {
  // Rust / cargo
  rustErr: /^error\[(E\d{4})\]: (.+)$/,
  rustErrPlain: /^error: (.+)$/,
  rustArrow: /^\s*--> (.+?):(\d+):(\d+)$/,
  rustPanic: /^thread '([^']*)'(?: \(\d+\))? panicked at (.+?):(\d+):(\d+):$/,
  rustPanicOld: /^thread '([^']*)' panicked at '(.*)', (.+?):(\d+):(\d+)$/,
  rustBtAt: /^\s+at (.+?):(\d+):(\d+)$/,
  cargoTestFailed: /^(?:test (\S+) \.\.\.|(\S+) ---) FAILED$/,
  cargoTestResult: /^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed/,
  // TypeScript
  tsErr: /^(.+?)\((\d+),(\d+)\): error ((?:TS|CS)\d+): (.*?)(?: \[[^\]]+\])?$/,
  tsErrGlobal: /^error (TS\d+): (.+)$/,
  kotlinErr: /^e: (?:file:\/\/)?(\S+\.kts?):(\d+):(\d+) (.+)$/,
  // bash/sh runtime errors: `./deploy.sh: line 3: foo: command not found`.
  shellErr: /^((?:\.{0,2}\/)?\S+\.(?:sh|bash)|\/\S+): line (\d+): (.+)$/,
  ldCannotFind: /^(?:\S*\/)?ld(?:\.\w+)?: (cannot find .+)$/,
  tsErrPretty: /^\s*(\S.*?):(\d+):(\d+) - error (TS\d+): (.*)$/,
  eslintUnix: /^(.+?):(\d+):(\d+): (.+?) \[(Error|Warning)\/(\S+)\]$/,
  // C / C++ toolchains
  ccErr: /^(.+?):(\d+):(\d+): (?:fatal error|error): (.*)$/,
  ccNote: /^(.+?):(\d+):(\d+):\s+(?:note: |required from |required by |instantiated from )/,
  ccInclude: /^In file included from (.+?):(\d+)[:,]$/,
  valgrindErr: /^==\d+== (Invalid (?:read|write) of size \d+|Invalid free\(\).*|Mismatched free\(\).*|Conditional jump or move depends on uninitialised value.*|Use of uninitialised value.*|Syscall param .*|\S+ bytes in \S+ blocks are definitely lost.*)$/,
  valgrindFrame: /^==\d+== {3,}(?:at|by) 0x[0-9A-Fa-f]+: .+ \((?!in )(.+?):(\d+)\)$/,
  cxxTerminate: /^terminate called after throwing an instance of '(.+)'$/,
  // What a shell prints when the program died of a signal (no sanitizer, no stack).
  signal: /^(?:\S+: (?:line \d+: )?\s*\d+ )?(Segmentation fault|Bus error|Illegal instruction|Floating point exception|Aborted)(?: \(core dumped\))?(?:\s+\S.*)?$/,
  ubsan: /^(.+?):(\d+):(\d+): runtime error: (.+)$/,
  ldErr: /(?:undefined reference to [`'](.+?)'|collect2: error: ld returned|ld(?:\.lld)?: error: (.+))/,
  makeErr: /^(?:g?make|ninja)(?:\[\d+\])?: \*\*\* (.+)$/,
  npmErr: /^npm (?:ERR!|error) code (\S+)/,
  asanErr: /^==\d+==ERROR: (\w+Sanitizer): ([\w-]+)(?: on (.*))?/,
  asanFrame: /^\s+#\d+ (?:0x[0-9a-f]+ in )?(\S+(?: \S+)*?) ([^\s:()]+):(\d+)(?::(\d+))?(?: \(.*\))?$/,
  tsan: /^WARNING: ThreadSanitizer: (.+?)(?: \(pid=\d+\))?$/,
  lldRef: /^>>> referenced by (\S+?):(\d+)/,
  ldLine: /^(\S+?):(\d+): undefined reference to [`'](.+?)'/,
  cmakeErr: /^CMake Error at (.+?):(\d+) \((\w+)\):$/,
  makeFileErr: /^(\S*[Mm]akefile\S*):(\d+): \*\*\* (.+?)\.?\s+Stop\.$/,
  eslintFile: /^((?:\/|[A-Za-z]:\\)\S+)$/,
  eslintItem: /^\s+(\d+):(\d+)\s+(error|warning)\s+(.+?)\s{2,}(\S+)$/,
  shellcheckAt: /^In (\S+) line (\d+):$/,
  shellcheckItem: /^\s*\^-*\^? (SC\d+) \((error|warning|info|style)\): (.+)$/,
  shellcheckGcc: /^(.+?):(\d+):(\d+): (error|warning|note): (.+) \[(SC\d+)\]$/,
  rustTestHeader: /^---- (\S+) stdout ----$/,
  nextestFail: /^\s*(?:FAIL|SIGSEGV|SIGABRT|TIMEOUT) \[\s*[\d.]+s\] (?:\S+ )?(\S+)$/,
  asanSummary: /^SUMMARY: (\w+Sanitizer): ([\w-]+) ([^\s:()]+):(\d+)(?::(\d+))?/,
  // Go
  goPanic: /^panic: (.+?)(?: \[recovered\])?$/,
  goFatal: /^fatal error: (.+)$/,
  goGoroutine: /^\s*goroutine \d+ \[(.+)\]:$/,
  goTestLogPanic: /^\s+\S+\.go:\d+: panic: (.+?)(?: \[recovered\])?$/,
  goFrame: /^\s+(\S+\.go):(\d+)(?: \+0x[0-9a-f]+)?$/,
  goRun: /^=== (?:RUN|CONT)\s+(\S+)$/,
  goRace: /^WARNING: DATA RACE$/,
  goBuild: /^(\S+\.go):(\d+):(\d+): (.+)$/,
  goTestFail: /^\s*--- FAIL: (\S+)/,
  goTestPass: /^\s*--- PASS: /,
  goTestLoc: /^\s+(\S+\.go):(\d+):(?: (.*))?$/,
  goTestPassName: /^\s*--- (?:PASS|SKIP): (\S+)/,
  unittestRan: /^Ran (\d+) tests? in/,
  unittestFailed: /^FAILED \((.+)\)$/,
  pytestSummary: /^=*\s*(.*?) in [\d.]+s(?: \([\d:]+\))?\s*=*$/,
  jestTests: /^Tests:\s+(?:(\d+) failed, )?(?:\d+ skipped, )?(?:(\d+) passed, )?\d+ total/,
  vitestTests: /^\s*Tests\s+(?:(\d+) failed)?(?: \| )?(?:(\d+) passed)?.*\(\d+\)$/,
  mochaPassing: /^\s+(\d+) passing/,
  mochaFailing: /^\s+(\d+) failing/,
  nodeSpecCount: /^ℹ (pass|fail) (\d+)$/,
  tapCount: /^# (pass|fail) (\d+)$/,
  mavenTests: /^(?:\[(?:ERROR|INFO|WARNING)\] )?Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)$/,
  dotnetTests: /^(?:Failed|Passed)!\s+- Failed:\s+(\d+), Passed:\s+(\d+)/,
  nextestSummary: /^\s*Summary \[.*\] +\d+ tests? run: (\d+) passed(?:.*?, (\d+) failed)?/,
  nodeVersion: /^Node\.js v\d+/,
  // Phases and noise
  warning: /^(?:warning(?:\[\w+\])?:|.+?:\d+:\d+: warning:|.+\(\d+,\d+\): warning )/,
  compileHint: /^\[INFO\] --- (?:maven-)?compiler|^\s*(?:Compiling|Checking|Building|Linking|Finished)\b|^(?:cc|gcc|g\+\+|clang\+?\+?|c\+\+|rustc|tsc|javac|go build|ar) |^\[\s*\d+%\]|^> tsc\b/,
  testHint: /test session starts|^running \d+ tests?$|^test result:|^=== RUN|^--- (?:FAIL|PASS)|^(?:PASS|FAIL)\s+\S|^\s+\d+ passing|^TAP version|^Ran \d+ tests?|::\S+ (?:PASSED|FAILED)/,
  runHint: /^\s*Running `|^Traceback|panicked at|^panic:|^fatal error:|==ERROR: \w+Sanitizer|^Node\.js v/,
} as const;

/** gcc/clang print no codes: give the common message shapes a stable code so they group and map to families. */
export function cCompilerCode(message: string): string {
  if (/undeclared|was not declared in this scope|use of undeclared identifier/.test(message)) return 'undeclared-identifier';
  if (/no matching function for call/.test(message)) return 'no-matching-function';
  if (/has no member named|no member named/.test(message)) return 'no-such-member';
  if (/incompatible (pointer )?type|cannot convert|invalid conversion|invalid initialization of (non-const )?reference/.test(message)) return 'type-mismatch';
  if (/^expected /.test(message)) return 'syntax-error';
  if (/No such file or directory/.test(message)) return 'missing-include';
  return 'cc-error';
}

export function isCFile(file: string): boolean {
  return /\.(c|cc|cpp|cxx|h|hh|hpp|hxx|m|mm)$/.test(file);
}
