import * as assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ScanReport } from '../../../src/core/scan/scanner';
import { api, openSettled, saveInEditor, waitFor, workspaceRoot } from './helpers';

const FIXTURE_NOTES = 3;

export function registerIndexTests(): void {
  describe('indexing', () => {
    it('indexes the vault on activation', async () => {
      const k0 = await api();
      await k0.whenIdle();
      const state = k0.state();
      assert.equal(state.kind, 'ready', JSON.stringify(state));
      if (state.kind !== 'ready') return;
      assert.equal(state.notes, FIXTURE_NOTES);
      assert.equal(state.last.reason, 'activation');
      assert.equal(state.last.report.added, FIXTURE_NOTES);
      const coreMs = k0.coreLoadTimes()['extensionCore.js'];
      assert.ok(coreMs !== undefined && coreMs > 0, 'the core bundle was never loaded');
      console.log(`K0_METRIC coreLoadMs=${coreMs.toFixed(2)}`);
    });

    it('k0maru.reindex runs an incremental scan and the index file exists', async () => {
      const k0 = await api();
      await k0.whenIdle();
      const report = await vscode.commands.executeCommand<ScanReport>('k0maru.reindex');
      assert.ok(report, 'the command returned no report');
      assert.equal(report.total, FIXTURE_NOTES);
      assert.equal(report.unchanged, FIXTURE_NOTES, 'nothing changed since the activation scan');
      assert.equal(report.added + report.modified + report.deleted, 0);
      assert.ok(existsSync(join(workspaceRoot(), '.k0maru', 'index.db')), '.k0maru/index.db missing after reindex');
    });

    it('shows the note count and last scan counts in the status bar', async () => {
      const k0 = await api();
      await k0.whenIdle();
      const { text, tooltip } = k0.statusBar();
      assert.equal(text, `$(database) K0maru: ${FIXTURE_NOTES} notes`);
      assert.match(tooltip, /0 added, 0 modified, 0 touched, 3 unchanged, 0 deleted, 0 skipped/);
    });

    it('rescans when a vault note is saved in the editor', async () => {
      const k0 = await api();
      const rel = '02_Architecture/ADR-002-retry-budget.md';
      const uri = vscode.Uri.file(join(workspaceRoot(), '.k0maru', 'wiki', ...rel.split('/')));
      // The note is created by the editor, and indexed once the watcher's scan has seen it ...
      const create = new vscode.WorkspaceEdit();
      create.createFile(uri, { ignoreIfExists: true, contents: Buffer.from('# ADR-002: Retry budget\n') });
      assert.ok(await vscode.workspace.applyEdit(create), 'applyEdit refused the new note');
      await waitFor('the index to hold the new note', () => {
        const s = k0.state();
        return s.kind === 'ready' && s.notes === FIXTURE_NOTES + 1;
      });
      await k0.whenIdle();
      const before = k0.state();
      assert.ok(before.kind === 'ready');
      // ... then its body is typed and saved in the editor: only the save carries it to disk.
      const doc = await openSettled(uri);
      const edit = new vscode.WorkspaceEdit();
      edit.insert(uri, new vscode.Position(1, 0), '\nRetry a failed charge at most twice. See [[ADR-001-redis-lock]].\n');
      assert.ok(await vscode.workspace.applyEdit(edit), 'applyEdit refused the body');
      await saveInEditor(doc);
      await waitFor('a scan after the save that re-indexes the note', () => {
        const s = k0.state();
        return s.kind === 'ready' && s.last.at > before.last.at && s.last.report.changedPaths.includes(rel) && s;
      });
      await k0.whenIdle();
      assert.equal(k0.statusBar().text, `$(database) K0maru: ${FIXTURE_NOTES + 1} notes`);
    });

    it('drops a note deleted on disk (file watcher)', async () => {
      const k0 = await api();
      await k0.whenIdle();
      rmSync(join(workspaceRoot(), '.k0maru', 'wiki', '02_Architecture', 'ADR-002-retry-budget.md'));
      await waitFor('the index to drop the deleted note', () => {
        const s = k0.state();
        return s.kind === 'ready' && s.notes === FIXTURE_NOTES && s.last.report.deleted === 1;
      });
    });
  });
}
