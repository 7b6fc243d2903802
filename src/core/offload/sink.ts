import { cleanPath } from './frames';
import type { Location, LogError, Phase, Runtime } from './types';

/** What a per-runtime tracker may do to the analysis it feeds (implemented by LogAnalyzer). */
export interface ReportSink {
  record(e: Omit<LogError, 'logLine'>): LogError;
  setLocation(err: LogError, l: Location): void;
  /** Changes an error's code and keeps the code counts right. */
  recode(err: LogError, code: string): void;
  /** `test` once tests have started, else `run`. */
  runtimePhase(): Phase;
  addPhase(p: Phase): void;
  /** One test's verdict from a runner that prints no summary line of its own (`go test`). */
  countTest(outcome: 'failed' | 'passed'): void;
  evidence: Record<Runtime, number>;
}

export function loc(file: string, line: string, col?: string): Location {
  return { file: cleanPath(file), line: Number(line), ...(col ? { column: Number(col) } : {}) };
}
