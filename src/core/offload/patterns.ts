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
  cargoTestFailed: /^test (\S+) \.\.\. FAILED$/,
  cargoTestResult: /^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed/,
  // TypeScript
  tsErr: /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/,
  tsErrPretty: /^(.+?):(\d+):(\d+) - error (TS\d+): (.*)$/,
  // C / C++ toolchains
  ccErr: /^(.+?):(\d+):(\d+): (?:fatal error|error): (.*)$/,
  ubsan: /^(.+?):(\d+):(\d+): runtime error: (.+)$/,
  ldErr: /(?:undefined reference to [`'](.+?)'|collect2: error: ld returned|ld(?:\.lld)?: error: (.+))/,
  makeErr: /^(?:g?make|ninja)(?:\[\d+\])?: \*\*\* (.+)$/,
  npmErr: /^npm (?:ERR!|error) code (\S+)/,
  asanErr: /^==\d+==ERROR: (\w+Sanitizer): ([\w-]+)(?: on (.*))?/,
  asanFrame: /^\s+#\d+ 0x[0-9a-f]+ in (.+) ([^\s:()]+):(\d+)(?::(\d+))?$/,
  asanSummary: /^SUMMARY: (\w+Sanitizer): ([\w-]+) ([^\s:()]+):(\d+)(?::(\d+))?/,
  // Go
  goPanic: /^panic: (.+?)(?: \[recovered\])?$/,
  goFatal: /^fatal error: (.+)$/,
  goGoroutine: /^goroutine \d+ \[(.+)\]:$/,
  goFrame: /^\t(.+\.go):(\d+)(?: \+0x[0-9a-f]+)?$/,
  goBuild: /^(\S+\.go):(\d+):(\d+): (.+)$/,
  goTestFail: /^\s*--- FAIL: (\S+)/,
  goTestPass: /^\s*--- PASS: /,
  goTestLoc: /^\s+(\S+_test\.go):(\d+): (.+)$/,
  // Python
  pyTraceback: /^Traceback \(most recent call last\):$/,
  pyFrame: /^\s+File "(.+?)", line (\d+)(?:, in (.+))?$/,
  pyExc: /^([A-Za-z_][\w.]*)(?:: (.*))?$/,
  pyChain: /^(The above exception was the direct cause of the following exception:|During handling of the above exception, another exception occurred:)$/,
  pytestSection: /^=+ (FAILURES|ERRORS) =+$/,
  pytestOtherSection: /^=+ (short test summary info|warnings summary|.*\bpassed\b.*|.*\bfailed\b.*) =+$/,
  pytestHeader: /^_{3,} (.+?) _{3,}$/,
  pytestE: /^E\s+(.+)$/,
  pytestLoc: /^(\S+\.py):(\d+): (?:in \S+|(\w+))$/,
  pytestSummary: /^=+ (.*) in [\d.]+s(?: \([\d:]+\))? =+$/,
  unittestFail: /^(FAIL|ERROR): (\S+) \((.+)\)$/,
  unittestRan: /^Ran (\d+) tests? in/,
  unittestFailed: /^FAILED \((.+)\)$/,
  // JavaScript / Node / test runners
  jsErr: /^(?:Uncaught )?((?:[A-Z][A-Za-z]*)?(?:Error|Exception)|UnhandledPromiseRejection)(?: \[([A-Z_0-9]+)\])?: (.*)$/,
  jsFrame: /^\s+at (?:(.+?) \()?(.+?):(\d+):(\d+)\)?$/,
  jsThrowSite: /^((?:file:\/\/)?\/\S+|[A-Za-z]:\\\S+|\S+\.[cm]?[jt]sx?):(\d+)$/,
  jsCode: /^\s+code: '([A-Z_0-9]+)'/,
  nodeVersion: /^Node\.js v\d+/,
  jestBullet: /^\s*● (.+)$/,
  jestTests: /^Tests:\s+(?:(\d+) failed, )?(?:\d+ skipped, )?(?:(\d+) passed, )?\d+ total/,
  mochaPassing: /^\s+(\d+) passing/,
  mochaFailing: /^\s+(\d+) failing/,
  tapNotOk: /^\s*not ok \d+ - (.+)$/,
  // node:test / TAP YAML diagnostics under a `not ok`
  tapLocation: /^\s+location: '(.+):(\d+):(\d+)'$/,
  tapName: /^\s+name: '(\w+)'$/,
  tapErrorStart: /^\s+error: (?:\|-|'(.*)')$/,
  tapStackFrame: /^\s+(?:.+? \()?((?:file:\/\/)?\/[^\s()]+|[A-Za-z]:\\[^\s()]+|node:[^\s()]+):(\d+):(\d+)\)?$/,
  tapEnd: /^\s+\.\.\.$/,
  tapCount: /^# (pass|fail) (\d+)$/,
  // Phases and noise
  warning: /^(?:warning(?:\[\w+\])?:|.+?:\d+:\d+: warning:|.+\(\d+,\d+\): warning )/,
  compileHint: /^\s*(?:Compiling|Checking|Building|Linking|Finished)\b|^(?:cc|gcc|g\+\+|clang\+?\+?|c\+\+|rustc|tsc|javac|go build|ar) |^\[\s*\d+%\]|^> tsc\b/,
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
