import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { K0maruApi } from '../../../src/extension/api';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { InitReport } from '../../../src/core/vault/init';
import { within } from './console';
import { EXTENSION_ID, waitFor, workspaceRoot } from './helpers';

/** A workspace without `.k0maru` (noVault.runner.ts): the extension stays asleep until one of its commands runs. */
export function registerNoVaultTests(): void {
  describe('workspace without a vault', () => {
    it('does not activate on startup', async () => {
      const ext = vscode.extensions.getExtension<K0maruApi>(EXTENSION_ID);
      assert.ok(ext, `${EXTENSION_ID} is not loaded`);
      // Give startup activation events time to fire; a workspaceContains match would have activated it by now.
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(ext.isActive, false);
    });

    it('activates on its command and reports that there is no vault', async () => {
      const ext = vscode.extensions.getExtension<K0maruApi>(EXTENSION_ID)!;
      assert.equal(await vscode.commands.executeCommand('k0maru.reindex'), undefined);
      assert.equal(ext.isActive, true);
      assert.equal(ext.exports.state().kind, 'no-vault');
      assert.equal(ext.exports.projectRoot, undefined);
      assert.equal(ext.exports.statusBar().text, '$(database) K0maru: no vault');
    });

    it('the console opens without a vault and says so in its header', async () => {
      const ext = vscode.extensions.getExtension<K0maruApi>(EXTENSION_ID)!;
      await vscode.commands.executeCommand('k0maru.openConsole');
      const hello = await within('the console page to get hello', ext.exports.console.whenReady('panel'));
      assert.equal(hello.vaultName, 'no vault');
      assert.ok(!existsSync(join(workspaceRoot(), '.k0maru')), 'opening the console created a vault');
      // The panel stays open: the next test checks it learns of the vault Init creates.
    });

    it('#12 every pane has a welcome without a vault; the walkthrough has no literal backticks and ticks step 1 on a vault', () => {
      const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as {
        contributes: { viewsWelcome: { view: string; when?: string }[]; walkthroughs: { steps: { id: string; description: string; completionEvents?: string[] }[] }[] };
      };
      for (const view of ['k0maru.architecture', 'k0maru.memory', 'k0maru.offloads']) {
        assert.ok(pkg.contributes.viewsWelcome.some((w) => w.view === view && /!k0maru\.hasVault/.test(w.when ?? '')), `${view} has no welcome without a vault`);
      }
      const steps = pkg.contributes.walkthroughs.flatMap((w) => w.steps);
      for (const s of steps) assert.ok(!s.description.includes('`'), `step ${s.id} shows literal backticks: ${s.description}`);
      assert.ok(steps[0].completionEvents?.includes('onContext:k0maru.hasVault'), JSON.stringify(steps[0].completionEvents));
    });

    it('k0maru.initVault creates the vault and the extension opens it without a reload', async () => {
      const ext = vscode.extensions.getExtension<K0maruApi>(EXTENSION_ID)!;
      const report = await vscode.commands.executeCommand<InitReport>('k0maru.initVault');
      assert.ok(report, 'the command returned nothing');
      assert.equal(report.projectRoot, workspaceRoot());
      assert.ok(existsSync(join(workspaceRoot(), '.k0maru', 'wiki', '00_Meta', 'vision.md')));
      assert.equal(ext.exports.projectRoot, workspaceRoot());
      await waitFor('the new vault to be indexed', () => ext.exports.state().kind === 'ready');
      // #16 item 12: a vault with no ADR and no memory yet shows the views' welcome text, not empty groups.
      assert.deepEqual(await ext.exports.views.architecture(), [], 'the Architecture view shows groups with 0 ADRs, hiding its welcome');
      assert.deepEqual(await ext.exports.views.memory(), [], 'the Memory view shows empty groups, hiding its welcome');
      // The console opened before Init is told again who it talks to: a fresh hello names the new vault.
      await waitFor('the open console to be sent a hello naming the vault', () => ext.exports.console.stats().vaultNames.panel === basename(workspaceRoot()));
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });
  });
}
