import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { within } from './console';
import { waitForRunner } from './consoleMarks';
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

    it('registers no MCP server, runs no guard and refuses commands that write', async () => {
      const k0 = await api();
      assert.equal(k0.mcp().registration, 'untrusted');
      const charge = vscode.Uri.file(join(workspaceRoot(), 'src', 'charge.ts'));
      await vscode.workspace.openTextDocument(charge);
      assert.deepEqual(await k0.guard.check(charge), []);
      assert.deepEqual(vscode.languages.getDiagnostics(charge).filter((d) => d.source === 'K0maru'), []);
      assert.equal(await vscode.commands.executeCommand('k0maru.flushDecision', { title: 'Nope', summary: 'must not be written' }), undefined);
      assert.equal(await vscode.commands.executeCommand('k0maru.installIntegrations'), undefined);
      assert.equal(await vscode.commands.executeCommand('k0maru.offloadSelection', { text: 'x\n'.repeat(200) }), undefined);
      assert.ok(!existsSync(join(workspaceRoot(), '.mcp.json')), 'agent configs were written in an untrusted workspace');
      assert.ok(!existsSync(join(workspaceRoot(), '.k0maru', 'refs')), 'an offload was written in an untrusted workspace');
      assert.deepEqual(await k0.views.architecture(), []);
    });

    it('the console opens, says it is restricted and answers a search with the reason; it writes nothing', async function () {
      this.timeout(200_000);
      const k0 = await api();
      await vscode.commands.executeCommand('k0maru.openConsole');
      const hello = await within('the console page to get hello', k0.console.whenReady('panel'));
      assert.match(hello.vaultName, / \(restricted\)$/);
      // untrusted.runner.ts searches in the page and sees the reason; the host answered with an error, nothing else.
      await waitForRunner(workspaceRoot());
      const stats = k0.console.stats();
      assert.ok(stats.failed >= 1, JSON.stringify(stats));
      // `status` (the header's embedding progress) reads nothing from the workspace: with nothing embedded in
      // Restricted Mode it answers empty. Every method that reads the vault must have failed.
      const { status: _embeddingStatus, ...reads } = stats.answered;
      assert.deepEqual(reads, {}, 'the console answered a request in Restricted Mode');
      assert.ok(!existsSync(join(workspaceRoot(), '.k0maru', 'index.db')), 'the console wrote an index in an untrusted workspace');
    });
  });
}
