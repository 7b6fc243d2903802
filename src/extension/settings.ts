import * as vscode from 'vscode';

/** The `k0maru.*` settings, read fresh each time (they can change while the extension runs). */
export interface Settings {
  /** Folder holding `.k0maru/` (absolute or relative to the first workspace folder); '' = auto. */
  vaultPath: string;
  /** Embedding model folder for hybrid recall; '' = the bundled model. */
  embeddingModelPath: string;
  guardOnSave: boolean;
  /** Warnings count as errors, as `k0maru guard --strict` does. */
  strict: boolean;
  loadoutBudget: number;
  /** Globs (relative to the project root) the editor's guard never checks. */
  exclude: string[];
}

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration('k0maru');
  return {
    vaultPath: c.get<string>('vaultPath', '').trim(),
    embeddingModelPath: c.get<string>('embeddingModelPath', '').trim(),
    guardOnSave: c.get<boolean>('guardOnSave', true),
    strict: c.get<boolean>('strict', false),
    loadoutBudget: c.get<number>('loadoutBudget', 300),
    exclude: c.get<string[]>('exclude', []).filter((g) => typeof g === 'string' && g.trim()),
  };
}
