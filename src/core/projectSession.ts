import type { Project } from './project';
import type { Logger } from './index/db';

export interface SessionOptions {
  vault?: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  log: Logger;
}

/**
 * A long-lived host's one project (the MCP server, `k0maru ui`), opened on first use and kept open so the scanner's in-memory state stays warm.
 * Before every answer a quick incremental scan picks up edits made since (a clean scan costs a few ms). A vault
 * that is not there yet is looked for again on the next call, so `k0maru init` after the server started works.
 */
export class ProjectSession {
  private project: Project | undefined;
  private vectorSession: import('./embed/vectorSession').VectorSession | undefined;
  constructor(private readonly opts: SessionOptions) {}

  async fresh(): Promise<Project> {
    if (!this.project) {
      // Loaded on the first call: tools/list must not wait for SQLite and the parsers.
      const { openProject } = await import('./project');
      this.project = openProject({ vault: this.opts.vault, cwd: this.opts.cwd, env: this.opts.env, log: this.opts.log });
    }
    const report = await this.project.scan();
    for (const w of report.warnings) this.opts.log('warn', `${w.path}:${w.line}: ${w.message}`);
    return this.project;
  }

  /**
   * Where the vault is, without opening the index: the offload tools only write under `.k0maru/refs/`, and need
   * neither SQLite nor a scan.
   */
  async paths(): Promise<import('./vault/paths').VaultPaths> {
    if (this.project) return this.project.paths;
    const { locateVault } = await import('./vault/paths');
    return locateVault({ vault: this.opts.vault, cwd: this.opts.cwd, env: this.opts.env });
  }

  /**
   * The vector channel for hybrid recall: one embedding worker for the server's lifetime, started on the first
   * hybrid call; each call embeds what the scanner changed for up to `budgetMs`, then answers (pending chunks
   * are reported). No model → BM25 with the reason as a warning.
   */
  async vectors(budgetMs: number): Promise<{ channel?: import('./search/types').VectorChannel; warning?: string }> {
    const project = this.project ?? (await this.fresh());
    if (!this.vectorSession) {
      const { VectorSession } = await import('./embed/vectorSession');
      this.vectorSession = new VectorSession(project.index, { env: this.opts.env, threads: 1 });
    }
    return this.vectorSession.prepare(budgetMs);
  }

  /** See VectorSession.fillInBackground: for a host a person looks at (`k0maru ui`), not for one-shot agents' calls. */
  fillVectorsInBackground(opts: import('./embed/vectorSession').BackgroundFill): void {
    this.vectorSession?.fillInBackground(opts);
  }

  async close(): Promise<void> {
    const vs = this.vectorSession;
    this.vectorSession = undefined;
    await vs?.dispose();
    this.project?.close();
    this.project = undefined;
  }
}
