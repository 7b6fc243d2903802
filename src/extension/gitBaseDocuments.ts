import * as vscode from 'vscode';
import { loadCore } from './coreLoader';

/** Scheme of a file as it was at a commit: `k0maru-base:/<repo path>?<commit>`; `?` alone is an empty side. */
export const BASE_SCHEME = 'k0maru-base';

const COMMIT = /^[0-9a-f]{7,64}$/i;

/** The left (or empty right) side of "Show Changes Since This Note": nothing on disk, read-only, never dirty. */
export function baseUri(repoPath: string, commit: string | undefined): vscode.Uri {
  return vscode.Uri.from({ scheme: BASE_SCHEME, path: `/${repoPath}`, query: commit ?? '' });
}

/**
 * Serves files at a commit from `git show <commit>:<path>`, run through the core's hardened runGit (no shell; the
 * repository's config cannot start programs). Only repository-relative paths without `..` and hex commits are
 * served: a URI cannot make it read outside the repository or pass options to git.
 */
export class GitBaseDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(BASE_SCHEME, this);

  /** `repoRoot()`: the repository's top folder (anchor paths are relative to it), undefined outside one. */
  constructor(private readonly repoRoot: () => Promise<string | undefined>) {}

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const path = uri.path.replace(/^\/+/, '');
    const commit = uri.query;
    if (!commit) return ''; // the empty side: a file deleted since the note, or one that did not exist at its base
    if (!COMMIT.test(commit) || !isRepoPath(path)) throw new Error(`not a K0maru base document: ${uri.toString()}`);
    const root = await this.repoRoot();
    if (!root) throw new Error('this project is not inside a git repository');
    const abort = new AbortController();
    const sub = token.onCancellationRequested(() => abort.abort());
    try {
      return await loadCore().runGit(root, ['show', '--no-textconv', `${commit}:${path}`], { signal: abort.signal });
    } finally {
      sub.dispose();
    }
  }

  dispose(): void {
    this.registration.dispose();
  }
}

/** A repository-relative path: no leading `/`, no drive, no `..` segment, no NUL. */
export function isRepoPath(p: string): boolean {
  return !!p && !p.startsWith('/') && !/^[a-zA-Z]:/.test(p) && !p.includes('\0') && !p.split(/[\\/]/).includes('..');
}
