import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import * as vscode from 'vscode';
import type { ConsoleInfo } from '../../../src/extension/api';
import * as consoleCore from '../../../src/extension/coreConsole';
import { openNoteInEditor } from '../../../src/extension/console/openNote';
import { PROTOCOL_VERSION } from '../../../src/shared/protocol';
import { waitForRunner } from './consoleMarks';
import { api, waitFor, workspaceRoot } from './helpers';

export const within = <T>(what: string, p: Promise<T>, ms = 30_000): Promise<T> =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms))]);

/** Console webview tabs in the editor area (the panel's view type is prefixed by the workbench). */
const consoleTabs = () =>
  vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('k0maru.console'));

/** The console's handshake with the real page bundle (dist/webview/webview.js) in a real webview. */
export function registerConsoleTests(): void {
  describe('console webview', () => {
    it('K0maru: Open Console shows the page, which completes the ready → hello handshake', async () => {
      const k0 = await api();
      const before = k0.console.stats();
      await vscode.commands.executeCommand('k0maru.openConsole');
      const hello: ConsoleInfo = await within('the panel page to say ready and get hello', k0.console.whenReady('panel'));
      assert.deepEqual(hello, { layout: 'panel', vaultName: basename(workspaceRoot()), version: hello.version, protocol: PROTOCOL_VERSION });
      const ext = vscode.extensions.getExtension('k0maru.k0maru-agent-memory')!;
      assert.equal(hello.version, ext.packageJSON.version);
      const after = k0.console.stats();
      assert.equal(after.pages, before.pages + 1);
      assert.ok(after.hellos > before.hellos, JSON.stringify(after));
      assert.equal(after.failed, 0, 'the page sent a message the host rejected (see the K0maru log)');
      assert.equal(consoleTabs().length, 1, 'no console tab in the editor area');
    });

    it('running the command again reveals the same panel', async () => {
      const k0 = await api();
      const pages = k0.console.stats().pages;
      await vscode.commands.executeCommand('k0maru.openConsole');
      assert.equal(consoleTabs().length, 1);
      assert.equal(k0.console.stats().pages, pages, 'a second page was rendered');
    });

    it('the sidebar view renders the narrow layout and completes its own handshake', async () => {
      const k0 = await api();
      await vscode.commands.executeCommand('k0maru.console.focus');
      const hello = await within('the sidebar page to say ready and get hello', k0.console.whenReady('sidebar'));
      assert.equal(hello.layout, 'sidebar');
      assert.equal(hello.vaultName, basename(workspaceRoot()));
    });

    it('openNote opens an indexed note at its line and refuses paths that leave the notes root', async () => {
      const notesRoot = join(workspaceRoot(), '.k0maru', 'wiki');
      // The index is a port here: a fake that knows the paths listed, so the path rules are tested one by one.
      const indexed = new Set(['02_Architecture/ADR-001-redis-lock.md', '../README.md', 'escape.md']);
      const root = workspaceRoot();
      const paths = { projectRoot: root, k0Dir: join(root, '.k0maru'), notesRoot, indexPath: join(root, '.k0maru', 'index.db'), refsDir: join(root, '.k0maru', 'refs'), configPath: join(root, '.k0maru', 'config.json') };
      const project = { paths, index: { get: (_sql: string, params?: unknown[]) => (indexed.has(String(params?.[0])) ? { found: 1 } : null) } };
      const open = (path: string, line?: number) => openNoteInEditor(consoleCore, project as never, { path, line }, 'sidebar');
      const code = (p: Promise<unknown>) => p.then(() => 'opened', (e: { code?: string }) => e.code ?? String(e));

      assert.deepEqual(await open('02_Architecture/ADR-001-redis-lock.md', 3), { shown: 'editor', path: '02_Architecture/ADR-001-redis-lock.md' });
      const editor = vscode.window.activeTextEditor;
      assert.equal(editor?.document.uri.fsPath, join(notesRoot, '02_Architecture', 'ADR-001-redis-lock.md'));
      assert.equal(editor?.selection.active.line, 2, 'the editor is not at line 3');

      assert.equal(await code(open('../README.md')), 'PATH_OUTSIDE_VAULT');
      assert.equal(await code(open(join(workspaceRoot(), 'README.md'))), 'PATH_OUTSIDE_VAULT');
      assert.equal(await code(open('00_Meta/not-indexed.md')), 'NOTE_NOT_FOUND');
      const outside = join(tmpdir(), `k0-outside-${process.pid}`);
      mkdirSync(outside, { recursive: true });
      writeFileSync(join(outside, 'secret.md'), '# not a vault note\n');
      symlinkSync(join(outside, 'secret.md'), join(notesRoot, 'escape.md'));
      try {
        assert.equal(await code(open('escape.md')), 'PATH_OUTSIDE_VAULT', 'a symlink out of the vault was opened');
      } finally {
        rmSync(join(notesRoot, 'escape.md'));
        rmSync(outside, { recursive: true, force: true });
      }
    });

    it('the page is served from dist/webview/ only, and the core console bundle stays out of activation', async () => {
      const ext = vscode.extensions.getExtension('k0maru.k0maru-agent-memory')!;
      assert.ok(existsSync(join(ext.extensionPath, 'dist', 'webview', 'webview.js')), 'dist/webview/webview.js missing: run node esbuild.mjs');
      const main = readFileSync(join(ext.extensionPath, 'dist', 'extension.js'), 'utf8');
      // zod (the protocol's validator) and the dispatcher belong to dist/extensionConsole.js, loaded by the first message.
      assert.ok(!/from "zod"|ZodError|zod\/v4/.test(main), 'dist/extension.js bundles zod: import the console core lazily (coreConsole.ts)');
      assert.ok(!main.includes('invalid console message'), 'dist/extension.js bundles the console dispatcher (src/core/console/dispatch.ts)');
      const k0 = await api();
      assert.ok(k0.coreLoadTimes()['extensionConsole.js'] !== undefined, 'the console bundle never loaded although pages talked');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });
  });
}

/**
 * The user round trip, driven from outside by console.runner.ts: this side opens the console and waits while the
 * runner types a query into the page, sees the hits and clicks one; then checks what the host answered and that
 * the note is open in an editor.
 */
export function registerConsoleUiTests(): void {
  describe('console webview driven by a user (console.runner.ts)', () => {
    it('answers a search and opens the clicked note in an editor', async function () {
      this.timeout(200_000);
      const k0 = await api();
      await k0.whenIdle();
      await vscode.commands.executeCommand('k0maru.openConsole');
      await within('the panel page to say ready and get hello', k0.console.whenReady('panel'));
      await waitForRunner(workspaceRoot());
      // The runner saw the editor tab; the host counts openNote once the page accepted its response, a moment later.
      await waitFor('the openNote response to reach the page', () => (k0.console.stats().answered.openNote ?? 0) >= 1, 10_000)
        .catch(() => assert.fail(`no openNote answered: ${JSON.stringify(k0.console.stats())}`));
      const stats = k0.console.stats();
      assert.ok((stats.answered.search ?? 0) >= 1, `no search answered: ${JSON.stringify(stats)}`);
      assert.equal(stats.failed, 0, `the host answered with errors: ${JSON.stringify(stats)}`);
      // The runner went on to the Offloads tab and came back to the note's tab: the host hears of that a moment later.
      await waitFor('the note editor to be active again', () => vscode.window.activeTextEditor !== undefined, 15_000).catch(() => undefined);
      const editor = vscode.window.activeTextEditor;
      assert.ok(editor, 'no active editor after clicking a hit');
      assert.equal(basename(editor.document.uri.fsPath), 'ADR-001-redis-lock.md');
      assert.ok(editor.document.uri.fsPath.startsWith(join(workspaceRoot(), '.k0maru', 'wiki')), editor.document.uri.fsPath);

      // A pushed event reaches the page, which re-asks what it shows: the same query, answered a second time.
      const searches = stats.answered.search ?? 0;
      await vscode.commands.executeCommand('k0maru.refreshViews');
      await waitFor('the page to search again after vaultChanged', () => (k0.console.stats().answered.search ?? 0) > searches, 15_000)
        .catch(() => assert.fail(`the page did not re-ask after vaultChanged: ${JSON.stringify(k0.console.stats())}`));
      assert.ok(k0.console.stats().events >= 1);
    });
  });
}
