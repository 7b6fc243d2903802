/** Shared shapes of the log analysis: used by the offload engine, the GC and the distiller. */

export type Runtime = 'rust' | 'python' | 'typescript' | 'javascript' | 'go' | 'c-cpp' | 'java' | 'dotnet' | 'shell' | 'unknown';
export type Phase = 'compile' | 'test' | 'run';

export type ErrorKind =
  | 'compile-error' // rustc, gcc/clang, go build
  | 'type-error' // tsc
  | 'link-error'
  | 'panic' // Rust / Go panics
  | 'fatal' // Go runtime fatal errors (deadlock, concurrent map writes)
  | 'exception' // Python exceptions
  | 'uncaught' // Node uncaught errors
  | 'unhandled-rejection'
  | 'sanitizer' // ASan / UBSan / LSan / TSan reports
  | 'test-failure'
  | 'setup-error' // pytest "ERROR at setup of …", a suite that failed to load: the environment, not the assertion
  | 'lint' // eslint errors, shellcheck errors and warnings
  | 'lint-note' // shellcheck info / style: reported, never ahead of a real finding
  | 'build-failure'; // make / cargo "could not compile" summaries — symptoms, never the primary if anything better exists

export interface Location {
  file: string;
  line: number;
  column?: number;
}

export interface LogError {
  /** Stable code: `E0382`, `TS2339`, `KeyError`, `heap-use-after-free`, `fatal error`, `panic`, `cc-error` … */
  code: string;
  kind: ErrorKind;
  message: string;
  runtime: Runtime;
  phase: Phase;
  /** The root `file:line`: the first frame in the user's code. */
  location?: Location;
  /** 1-based line in the raw log where the error starts. */
  logLine: number;
  /** The failing test, as the runner names it (`tests/test_p.py::test_rate`, `sum > adds`, `TestQuota`). */
  test?: string;
  /**
   * An exception chain, final exception first (the one the program died with), then its causes in order:
   * Python `raise … from …` / "During handling…", Node `[cause]:`, Java `Caused by:`, ExceptionGroup members.
   * Each link says where it surfaced (its deepest user frame).
   */
  chain?: ChainLink[];
}

export interface ChainLink {
  code: string;
  message: string;
  location?: Location;
}

export interface LogAnalysis {
  lines: number;
  /** Kept errors, in log order (bounded; `errorCount` has the full number). */
  errors: LogError[];
  errorCount: number;
  warningCount: number;
  tests: { failed: number; passed: number };
  phases: Phase[];
  runtime: Runtime;
  primary?: LogError;
  /** Distinct codes with how often each was seen (bounded). */
  codeCounts: Record<string, number>;
}

export function formatLocation(loc: Location | undefined): string {
  if (!loc) return '';
  return `${loc.file}:${loc.line}${loc.column ? `:${loc.column}` : ''}`;
}
