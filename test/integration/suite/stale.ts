import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { NodeSnapshot } from '../../../src/extension/views/listTree';
import type { StaleDiff } from '../../../src/extension/staleCommands';
import { recallPickItems, type EditorRecallResult } from '../../../src/extension/commands';
import { API_NOTE, CLIENT_AT_BASE, CLIENT_NOTE, FRESH_NOTE, POOL_AT_BASE, POOL_NOTE, QUEUE_NOTE } from '../harness/staleWorkspace';
import { api, EXTENSION_ID, waitFor, workspaceRoot } from './helpers';

const staleGroup = (snap: NodeSnapshot[]) => snap.find((n) => n.label === 'Stale');
const gitRev = (rev: string) => execFileSync('git', ['rev-parse', rev], { cwd: workspaceRoot(), encoding: 'utf8' }).trim();

/** The Memory view as it is once it lists what `ready` says (it is rebuilt after every scan). */
async function memoryUntil(what: string, ok: (snap: NodeSnapshot[]) => boolean): Promise<NodeSnapshot[]> {
  const k0 = await api();
  let snap: NodeSnapshot[] = [];
  let last = '';
  try {
    return await waitFor(what, () => {
      void k0.views.memory().then((s) => (snap = s));
      last = JSON.stringify(snap.map((n) => ({ label: n.label, description: n.description, children: n.children?.map((c) => `${c.label} — ${c.description}`) })));
      return ok(snap) && snap;
    });
  } catch (err) {
    throw new Error(`${(err as Error).message}; the Memory view holds ${last}`);
  }
}

/** The diff editor that is active now: its two sides. */
function activeDiff(): vscode.TabInputTextDiff {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  assert.ok(input instanceof vscode.TabInputTextDiff, `the active tab is not a diff editor: ${JSON.stringify(input)}`);
  return input;
}

/**
 * Issue #18 in the editor, on a real git repository (harness/staleWorkspace.ts): notes anchored to code that a
 * later commit changed or deleted appear in the Memory view's Stale group with the reason; "Show Changes Since
 * This Note" opens a diff editor of the file at the note's base against the working tree; "Mark Verified" writes
 * `verified_at: <HEAD>` into the note and it leaves the group.
 */
export function registerStaleTests(): void {
  describe('stale notes in the sidebar (issue #18)', () => {
    it('the Memory view lists the stale notes with their reasons, and not the fresh one', async () => {
      const k0 = await api();
      await k0.whenIdle();
      const snap = await memoryUntil('the Stale group to list three notes', (s) => (staleGroup(s)?.children?.length ?? 0) >= 4);
      const rows = staleGroup(snap)!.children!;
      for (const r of rows) console.log(`K0_NOTE stale row: ${r.label} — ${r.description}`);
      const pool = rows.find((r) => r.label === 'ADR-010 Connection pool');
      assert.ok(pool, `no row for the pool ADR: ${JSON.stringify(rows)}`);
      const head = gitRev('HEAD').slice(0, 7);
      // The reason a person can act on: which file, how many commits, the last one with its subject.
      assert.match(pool.description ?? '', /src\/db\/pool\.ts/);
      assert.match(pool.description ?? '', /1 commit/);
      assert.ok(pool.description?.includes(head), `the reason does not name the last commit ${head}: ${pool.description}`);
      const queue = rows.find((r) => r.label === 'ADR-011 Legacy queue');
      assert.match(queue?.description ?? '', /src\/legacy\/queue\.ts/);
      assert.ok(rows.some((r) => r.label === 'Splitting the API'), JSON.stringify(rows));
      assert.ok(!rows.some((r) => r.label === 'ADR-012 Retry policy'), `the unchanged note is listed as stale: ${JSON.stringify(rows)}`);
      // The ADR list marks the stale decision too.
      const arch = await k0.views.architecture();
      const adr = arch.flatMap((g) => g.children ?? []).find((n) => n.label === 'ADR-010 Connection pool');
      assert.match(adr?.description ?? '', /stale/, JSON.stringify(arch));
    });

    it('the Architecture view\'s stale ADR row has Show Changes Since This Note and Mark Verified', async () => {
      const k0 = await api();
      const rows = (await k0.views.architecture()).flatMap((g) => g.children ?? []);
      const pool = rows.find((n) => n.label === 'ADR-010 Connection pool');
      const fresh = rows.find((n) => n.label === 'ADR-012 Retry policy');
      assert.ok(pool && fresh, JSON.stringify(rows));
      // The menus package.json contributes to this view, matched the way the workbench matches `viewItem =~ /…/`.
      const menus = (vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON.contributes.menus['view/item/context'] as { command: string; when: string }[])
        .filter((m) => m.when.startsWith('view == k0maru.architecture && viewItem =~ '));
      const shows = (row: NodeSnapshot, command: string) => menus.some((m) => {
        if (m.command !== command) return false;
        const src = m.when.slice(m.when.indexOf('=~ ') + 3);
        return new RegExp(src.slice(1, src.lastIndexOf('/'))).test(row.contextValue ?? '');
      });
      for (const command of ['k0maru.showStaleChanges', 'k0maru.markVerified']) {
        assert.ok(shows(pool, command), `${command} is not on the stale ADR row (contextValue ${pool.contextValue})`);
        assert.ok(!shows(fresh, command), `${command} is on the fresh ADR row (contextValue ${fresh.contextValue})`);
      }
      // What the workbench hands the command: the row itself.
      const diff = await vscode.commands.executeCommand<StaleDiff>('k0maru.showStaleChanges', pool);
      assert.equal(diff?.note, POOL_NOTE, JSON.stringify(diff));
      assert.equal(activeDiff().original.path, '/src/db/pool.ts');
    });

    it('Recall marks a stale note in its picker with the reason', async () => {
      const r = await vscode.commands.executeCommand<EditorRecallResult>('k0maru.recall', { query: 'one pool per process with four connections' });
      const hit = r?.hits.find((h) => h.path === POOL_NOTE);
      assert.ok(hit, `no hit for the pool ADR: ${JSON.stringify(r?.hits.map((h) => h.path))}`);
      assert.match(hit.stale?.reason ?? '', /src\/db\/pool\.ts/, JSON.stringify(hit.stale));
      const item = recallPickItems(r!).find((i) => i.hit.path === POOL_NOTE)!;
      assert.ok(item.label.startsWith('$(warning) '), item.label);
      assert.ok(item.detail?.startsWith(`⚠ ${hit.stale!.reason.slice(0, 40)}`), item.detail);
    });

    it('Show Changes Since This Note opens a diff of the file at the note\'s base against the working tree', async () => {
      const diff = await vscode.commands.executeCommand<StaleDiff>('k0maru.showStaleChanges', { path: POOL_NOTE });
      assert.ok(diff, 'the command opened nothing');
      const input = await waitFor('the diff editor to be the active tab', () => {
        const i = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
        return i instanceof vscode.TabInputTextDiff && i.original.scheme === 'k0maru-base' && i;
      });
      assert.equal(input.original.path, '/src/db/pool.ts');
      assert.equal(input.original.query, gitRev('HEAD~1'), 'the left side is not the note\'s base');
      assert.equal(input.modified.scheme, 'file');
      assert.equal(input.modified.fsPath, join(workspaceRoot(), 'src', 'db', 'pool.ts'));
      // The left side is the file as git has it at the base (git show through the core's runGit).
      const left = await vscode.workspace.openTextDocument(input.original);
      assert.equal(left.getText(), POOL_AT_BASE);
      assert.match(vscode.window.tabGroups.activeTabGroup.activeTab?.label ?? '', /pool\.ts/);
    });

    it('a deleted anchored file shows its base against an empty side', async () => {
      await vscode.commands.executeCommand<StaleDiff>('k0maru.showStaleChanges', { path: QUEUE_NOTE });
      const input = await waitFor('the diff of the deleted file', () => {
        const i = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
        return i instanceof vscode.TabInputTextDiff && i.original.path === '/src/legacy/queue.ts' && i;
      });
      assert.equal(input.original.query, gitRev('HEAD~1'));
      assert.equal(input.modified.scheme, 'k0maru-base');
      assert.equal(input.modified.query, '', 'the right side of a deleted file is not the empty document');
      assert.equal((await vscode.workspace.openTextDocument(input.modified)).getText(), '');
      assert.match((await vscode.workspace.openTextDocument(input.original)).getText(), /QUEUE = "redis"/);
    });

    it('a note anchored to several files shows the one asked for', async () => {
      // As the row's inline button calls it: VS Code hands the command the tree node, which carries the note.
      const row = { label: 'Splitting the API', contextValue: 'k0maru.stale', arg: { path: API_NOTE, anchorPath: 'src/api/payments.ts' } };
      const diff = await vscode.commands.executeCommand<StaleDiff>('k0maru.showStaleChanges', row);
      assert.equal(diff?.path, 'src/api/payments.ts');
      const input = activeDiff();
      assert.equal(input.original.path, '/src/api/payments.ts');
      assert.equal(input.modified.fsPath, join(workspaceRoot(), 'src', 'api', 'payments.ts'));
      assert.match((await vscode.workspace.openTextDocument(input.original)).getText(), /\/v1\/payments/);
    });

    it('a note anchored to several files asks which one (quick pick), then shows it', async () => {
      const shown = vscode.commands.executeCommand<StaleDiff>('k0maru.showStaleChanges', { path: API_NOTE });
      // The picker lists the note's stale files in the order of the reason; a person presses Enter on the first.
      let picked: StaleDiff | undefined;
      void shown.then((d) => (picked = d));
      await waitFor('the anchored-file picker to be accepted', () => {
        if (picked) return true;
        void vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
        return false;
      });
      assert.equal(picked?.note, API_NOTE);
      assert.ok(['src/api/orders.ts', 'src/api/payments.ts'].includes(picked!.path), JSON.stringify(picked));
      const input = activeDiff();
      assert.equal(input.original.path, `/${picked!.path}`);
    });

    it('a renamed file: the anchor follows the rename, the left side is the old name at the base', async () => {
      const diff = await vscode.commands.executeCommand<StaleDiff>('k0maru.showStaleChanges', { path: CLIENT_NOTE });
      assert.equal(diff?.path, 'src/net/httpClient.ts', JSON.stringify(diff));
      const input = activeDiff();
      assert.equal(input.original.path, '/src/net/client.ts');
      assert.equal(input.modified.fsPath, join(workspaceRoot(), 'src', 'net', 'httpClient.ts'));
      assert.equal((await vscode.workspace.openTextDocument(input.original)).getText(), CLIENT_AT_BASE);
    });

    it('Mark Verified writes verified_at: HEAD into the note and the note leaves the Stale group', async () => {
      const k0 = await api();
      await vscode.commands.executeCommand('k0maru.markVerified', { path: POOL_NOTE });
      const text = readFileSync(join(workspaceRoot(), '.k0maru', 'wiki', POOL_NOTE), 'utf8');
      const head = gitRev('HEAD');
      assert.match(text, new RegExp(`^verified_at: ['"]?${head}['"]?$`, 'm'), text);
      assert.match(text, /We open one pool per process/, 'the note body was not kept');
      const snap = await memoryUntil('the pool ADR to leave the Stale group', (s) => {
        const rows = staleGroup(s)?.children ?? [];
        return rows.length > 0 && !rows.some((r) => r.label === 'ADR-010 Connection pool');
      });
      assert.ok(staleGroup(snap)!.children!.some((r) => r.label === 'ADR-011 Legacy queue'), 'the other stale notes left too');
      await k0.whenIdle();
      // Each of the rest, verified: the group is gone.
      for (const p of [QUEUE_NOTE, API_NOTE, CLIENT_NOTE]) await vscode.commands.executeCommand('k0maru.markVerified', { path: p });
      await memoryUntil('the Stale group to disappear', (s) => !staleGroup(s) && s.length > 0);
      assert.doesNotMatch(readFileSync(join(workspaceRoot(), '.k0maru', 'wiki', FRESH_NOTE), 'utf8'), /verified_at/);
    });

    it('outside a git repository the view says staleness is off, and why', async () => {
      const k0 = await api();
      const dotGit = join(workspaceRoot(), '.git');
      renameSync(dotGit, `${dotGit}-away`);
      try {
        await k0.reindex();
        const snap = await memoryUntil('the Stale row to say staleness is off', (s) => /^off: /.test(staleGroup(s)?.description ?? ''));
        const row = staleGroup(snap)!;
        assert.equal(row.children, undefined, 'the off row has children');
        assert.match(row.description!, /not a git repository/);
        assert.equal(snap[snap.length - 1], row, 'the off row is not last');
      } finally {
        renameSync(`${dotGit}-away`, dotGit);
      }
    });
  });
}
