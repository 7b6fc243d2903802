import * as vscode from 'vscode';

export const VIRTUAL_SCHEME = 'k0maru';
/** Shown documents kept for re-opening (a tab restored, "Reopen Closed Editor"); the oldest are dropped first. */
const MAX_DOCUMENTS = 32;

/**
 * Read-only Markdown the commands show (the loadout, an offload summary, a skill preview) as `k0maru:` virtual
 * documents: nothing on disk, never dirty, so closing them never asks to save an `Untitled-N` file, and the tab is
 * titled by what it shows. Editors of a content provider's documents are read-only.
 */
export class VirtualDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(VIRTUAL_SCHEME, this);

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.path) ?? `This K0maru document is no longer available. Run the command again to show it.\n`;
  }

  /** Shows `markdown` as `<name>.md` (one tab per name; showing the same name again replaces its text). */
  async show(name: string, markdown: string): Promise<vscode.TextDocument> {
    const path = `/${name.replace(/[\\/:*?"<>|#`\r\n]+/g, '-').slice(0, 120)}.md`;
    this.texts.delete(path);
    this.texts.set(path, markdown);
    while (this.texts.size > MAX_DOCUMENTS) this.texts.delete(this.texts.keys().next().value as string);
    const uri = vscode.Uri.from({ scheme: VIRTUAL_SCHEME, path });
    this.changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: false });
    return doc;
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
    this.texts.clear();
  }
}
