import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { api, workspaceRoot } from './helpers';

/** The folder opens in Restricted Mode (untrusted.runner.ts keeps Workspace Trust on). */
export function registerUntrustedTests(): void {
  describe('Restricted Mode', () => {
    it('activates (limited support) but does not index or write', async () => {
      assert.equal(vscode.workspace.isTrusted, false, 'the test workspace is trusted: Workspace Trust was not on');
      const k0 = await api();
      await k0.whenIdle();
      assert.equal(k0.state().kind, 'untrusted');
      assert.equal(k0.statusBar().text, '$(shield) K0maru: restricted');
      assert.equal(await vscode.commands.executeCommand('k0maru.reindex'), undefined);
      assert.ok(!existsSync(join(workspaceRoot(), '.k0maru', 'index.db')), 'an index was written in an untrusted workspace');
    });
  });
}
