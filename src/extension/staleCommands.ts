import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Project } from '../core/project';
import type { StaleAnchor, StaleInfo } from '../core/stale/types';
import { loadCore } from './coreLoader';
import { reportErrors, requireProject, type CommandHost } from './commandHost';
import { baseUri, isRepoPath } from './gitBaseDocuments';
import type { ListNode } from './views/listTree';

export const SHOW_STALE_CHANGES_COMMAND = 'k0maru.showStaleChanges';
export const MARK_VERIFIED_COMMAND = 'k0maru.markVerified';

/** What a Stale row hands its context-menu commands (ListNode.arg), and what automation may pass instead. */
export interface StaleNoteRef {
  /** The note's path in the index (vault-relative, as `k0maru stale` prints it). */
  path: string;
  /** Show Changes: which anchored file (its repository path), instead of asking. */
  anchorPath?: string;
}

/** What Show Changes opened: the two sides of the diff editor. */
export interface StaleDiff {
  note: string;
  path: string;
  left: vscode.Uri;
  right: vscode.Uri;
  title: string;
}

interface StaleEntry {
  path: string;
  title: string;
  info: StaleInfo;
}

/**
 * "Show Changes Since This Note" and "Mark Verified" on a stale note: a diff of an anchored file at the note's
 * base against the working tree, and `verified_at: HEAD` written into the note (the core's verifyNotes: atomic,
 * then rescanned, so the note leaves the Stale group).
 */
export class StaleCommands {
  private topLevel: { root: string; value: Promise<string | undefined> } | undefined;

  constructor(private readonly host: CommandHost) {}

  register(): vscode.Disposable[] {
    return [
      vscode.commands.registerCommand(SHOW_STALE_CHANGES_COMMAND, (arg?: unknown) => this.showChanges(arg)),
      vscode.commands.registerCommand(MARK_VERIFIED_COMMAND, (arg?: unknown) => this.markVerified(arg)),
    ];
  }

  /** The repository's top folder for the open project (anchor paths are relative to it); undefined outside git. */
  repoRoot(): Promise<string | undefined> {
    const root = this.host.controller()?.projectRoot;
    if (!root) return Promise.resolve(undefined);
    if (this.topLevel?.root !== root) {
      const value = loadCore()
        .runGit(root, ['rev-parse', '--show-toplevel'])
        .then((out) => out.trim() || undefined, () => undefined);
      this.topLevel = { root, value };
    }
    return this.topLevel.value;
  }

  async showChanges(arg?: unknown): Promise<StaleDiff | undefined> {
    const project = await requireProject(this.host, 'Show Changes Since This Note');
    if (!project) return undefined;
    return reportErrors(this.host, 'Show Changes Since This Note', async () => {
      const ref = await this.pickNote(project, arg, 'Show changes since which note?');
      if (!ref) return undefined;
      const anchor = await pickAnchor(ref.entry, ref.anchorPath);
      if (!anchor) return undefined;
      const repo = await this.repoRoot();
      if (!repo) throw new Error('this project is not inside a git repository');
      if (!isRepoPath(anchor.path)) throw new Error(`the anchor ${anchor.anchor} is not a repository path`);
      const info = ref.entry.info;
      const atBase = await this.pathAtBase(repo, info.base, anchor.path);
      const file = join(repo, anchor.path);
      const deleted = !existsSync(file);
      const left = baseUri(atBase ?? anchor.path, atBase ? info.base : undefined);
      const right = deleted ? baseUri(anchor.path, undefined) : vscode.Uri.file(file);
      const title = `${basename(anchor.path)} (${info.since}) ↔ ${deleted ? 'deleted' : 'working tree'}`;
      await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: false });
      return { note: ref.entry.path, path: anchor.path, left, right, title };
    });
  }

  async markVerified(arg?: unknown): Promise<{ path: string; verifiedAt: string }[] | undefined> {
    const project = await requireProject(this.host, 'Mark Verified');
    if (!project) return undefined;
    return reportErrors(this.host, 'Mark Verified', async () => {
      const ref = await this.pickNote(project, arg, 'Mark which note verified against HEAD?');
      if (!ref) return undefined;
      // verifyNotes rescans once it wrote: through the host's scan gate, so it never runs beside the watcher's scan
      // of the same file, and the status bar, the views and the console hear about it like after any scan.
      const controller = this.host.controller();
      const gated: Project = controller ? { ...project, scan: () => controller.scan('command') } : project;
      const result = await loadCore().verifyNotes(gated, [ref.entry.path]);
      this.host.log.info(`verified ${ref.entry.path} against HEAD (was stale: ${ref.entry.info.reason})`);
      this.host.refreshViews();
      return result;
    });
  }

  /** The stale note a command is about: the row it was run on, a `{path}` passed in, or one the person picks. */
  private async pickNote(project: Project, arg: unknown, placeHolder: string): Promise<{ entry: StaleEntry; anchorPath?: string } | undefined> {
    const stale: StaleEntry[] = loadCore().listStale(project.index);
    const ref = toRef(arg);
    if (ref) {
      const entry = stale.find((s) => s.path === ref.path);
      if (!entry) {
        void vscode.window.showInformationMessage(`K0maru: ${ref.path} is not stale (any more).`);
        return undefined;
      }
      return { entry, anchorPath: ref.anchorPath };
    }
    if (!stale.length) {
      void vscode.window.showInformationMessage('K0maru: no note is stale.');
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      stale.map((s) => ({ label: s.title, description: s.path, detail: s.info.reason, entry: s })),
      { title: 'K0maru: stale notes', placeHolder, matchOnDescription: true, matchOnDetail: true },
    );
    return pick && { entry: pick.entry };
  }

  /**
   * The anchored file's path at the base: the same path, or the one it had before a rename git follows (`-M`)
   * between the base and the working tree. Undefined: the file did not exist at the base (the left side is empty).
   */
  private async pathAtBase(repo: string, base: string, path: string): Promise<string | undefined> {
    const core = loadCore();
    const exists = await core.runGit(repo, ['cat-file', '-e', `${base}:${path}`]).then(() => true, () => false);
    if (exists) return path;
    const out = await core.runGit(repo, ['diff', ...core.gitDiffSafe(), '-M', '--name-status', '-z', base, '--'], { worktree: true }).catch(() => '');
    const f = out.split('\0');
    for (let i = 0; i < f.length; i++) {
      if (f[i].startsWith('R') && f[i + 2] === path) return f[i + 1];
      if (/^[RC]/.test(f[i])) i += 2;
      else i += 1;
    }
    return undefined;
  }
}

function toRef(arg: unknown): StaleNoteRef | undefined {
  if (typeof arg === 'string') return { path: arg };
  if (!arg || typeof arg !== 'object') return undefined;
  const node = arg as ListNode & StaleNoteRef;
  const carried = node.arg as StaleNoteRef | undefined;
  if (carried && typeof carried.path === 'string') return carried;
  return typeof node.path === 'string' ? { path: node.path, anchorPath: typeof node.anchorPath === 'string' ? node.anchorPath : undefined } : undefined;
}

/** One anchored file: the only one, the one asked for, or the one the person picks (one row per file). */
async function pickAnchor(entry: StaleEntry, anchorPath?: string): Promise<StaleAnchor | undefined> {
  const byPath = new Map<string, StaleAnchor>();
  for (const a of entry.info.anchors) if (!byPath.has(a.path)) byPath.set(a.path, a);
  const files = [...byPath.values()];
  if (anchorPath) {
    const a = byPath.get(anchorPath);
    if (!a) throw new Error(`${anchorPath} is not a stale anchor of ${entry.path}`);
    return a;
  }
  if (files.length <= 1) return files[0];
  const pick = await vscode.window.showQuickPick(
    files.map((a) => ({ label: a.path, description: a.anchor === a.path ? undefined : a.anchor, detail: a.reason, anchor: a })),
    { title: `K0maru: changes since "${entry.title}"`, placeHolder: 'Which anchored file?' },
  );
  return pick?.anchor;
}
