import * as vscode from 'vscode';

/** A plain node of a K0maru tree view; the views build these from the vault and the tests read them back. */
export interface ListNode {
  label: string;
  description?: string;
  tooltip?: string;
  icon?: string;
  command?: vscode.Command;
  contextValue?: string;
  /** What the row's context-menu and inline commands receive from it (VS Code hands them the node itself). */
  arg?: unknown;
  /** Present (even empty) on group nodes. */
  children?: ListNode[];
}

/** What the integration tests see of a view: labels and descriptions, recursively. */
export interface NodeSnapshot {
  label: string;
  description?: string;
  /** What package.json's menus match (`viewItem`), and what the row hands its commands. */
  contextValue?: string;
  arg?: unknown;
  children?: NodeSnapshot[];
}

/**
 * A tree whose whole content is rebuilt by one async function on refresh. The vault's views are small (tens to
 * hundreds of rows), so rebuilding beats tracking fine-grained changes; the build runs off the activation path.
 */
export class ListTree implements vscode.TreeDataProvider<ListNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ListNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private roots: Promise<ListNode[]> | undefined;

  constructor(private readonly build: () => Promise<ListNode[]>, private readonly onError: (err: unknown) => void) {}

  refresh(): void {
    this.roots = undefined;
    this.changed.fire(undefined);
  }

  getTreeItem(n: ListNode): vscode.TreeItem {
    const item = new vscode.TreeItem(n.label, n.children ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    item.description = n.description;
    item.tooltip = n.tooltip;
    item.command = n.command;
    item.contextValue = n.contextValue;
    if (n.icon) item.iconPath = new vscode.ThemeIcon(n.icon);
    return item;
  }

  getChildren(n?: ListNode): Promise<ListNode[]> | ListNode[] {
    if (n) return n.children ?? [];
    return this.rootNodes();
  }

  private rootNodes(): Promise<ListNode[]> {
    this.roots ??= this.build().catch((err) => {
      this.onError(err);
      return [];
    });
    return this.roots;
  }

  async snapshot(): Promise<NodeSnapshot[]> {
    const strip = (n: ListNode): NodeSnapshot => ({
      label: n.label,
      description: n.description,
      ...(n.contextValue ? { contextValue: n.contextValue } : {}),
      ...(n.arg !== undefined ? { arg: n.arg } : {}),
      ...(n.children ? { children: n.children.map(strip) } : {}),
    });
    return (await this.rootNodes()).map(strip);
  }

  dispose(): void {
    this.changed.dispose();
  }
}
