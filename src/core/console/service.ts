import type { ConsoleMethod, ConsoleRequest, EmbeddingProgress, ResultOf } from '../../shared/protocol';
import type { Project } from '../project';
import type { VectorAttempt } from '../host/recallPolicy';
import { getOffload, LineCheckpoints, listOffloads, readLog } from './offloads';
import { readNoteForPage } from './note';
import { savePrices } from '../scoreboard/prices';
import { readScoreboard } from '../scoreboard/scoreboard';
import { searchForConsole } from './search';

/**
 * What a console host hands the core: a project scanned up to date, and the vector channel when it can embed.
 * A ProjectHost fits as it is (`k0maru ui`: fresh and vectors; the editor: current and vectors).
 */
export interface ConsolePorts {
  project(): Promise<Project>;
  vectors(budgetMs: number): Promise<VectorAttempt>;
  /**
   * How far the vector index is filled, from what the host holds in memory (no query, no model load): the page's
   * header shows it while a background fill runs. Absent, or undefined: no vector channel yet.
   */
  embedding?(): EmbeddingProgress | undefined;
}

export interface ConsoleService {
  /** Answers one validated request; throws K0Error (the dispatcher turns it into an error response). */
  handle<M extends ConsoleMethod>(request: Extract<ConsoleRequest, { method: M }>): Promise<ResultOf<M>>;
}

/** How long one console search may spend embedding passages the scanner just changed. */
const SEARCH_EMBED_BUDGET_MS = 1500;

/**
 * `checkpoints`: where big raw logs' lines start, learnt while paging; a host that builds a service per message
 * (the editor) passes one it keeps, so paging through a log stays fast.
 */
export function createConsoleService(ports: ConsolePorts, checkpoints = new LineCheckpoints()): ConsoleService {
  const handlers: { [M in ConsoleMethod]: (params: Extract<ConsoleRequest, { method: M }>['params']) => Promise<ResultOf<M>> } = {
    search: async (p) => {
      // The host's whole answer, scan included; the page adds the transport and its own rendering to it.
      const t0 = performance.now();
      const project = await ports.project();
      const result = await searchForConsole(project, p, () => ports.vectors(SEARCH_EMBED_BUDGET_MS));
      return { ...result, hostMs: performance.now() - t0 };
    },
    openNote: async (p) => readNoteForPage(await ports.project(), p.path),
    listOffloads: async (p) => listOffloads((await ports.project()).paths, p.limit),
    getOffload: async (p) => getOffload((await ports.project()).paths, p.nodeId),
    readLog: async (p) => readLog((await ports.project()).paths, p.nodeId, p.from, p.to, checkpoints),
    scoreboard: async () => readScoreboard(await ports.project()),
    savePrices: async (p) => savePrices((await ports.project()).paths, p.tiers),
    status: async () => {
      const embedding = ports.embedding?.();
      return embedding ? { embedding } : {};
    },
  };
  return {
    handle: (request) => (handlers[request.method] as (p: unknown) => Promise<never>)(request.params),
  };
}
