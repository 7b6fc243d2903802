import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ScanReport } from '../../../src/core/scan/scanner';
import { api, EXTENSION_ID, workspaceRoot } from './helpers';

/** Runs against the extension installed from the .vsix (vsix.runner.ts), not the repository. */
export function registerPackagedTests(): void {
  describe('packaged .vsix', () => {
    it('is the installed copy, holding only the allow-listed files', () => {
      const ext = vscode.extensions.getExtension(EXTENSION_ID);
      assert.ok(ext, `${EXTENSION_ID} is not installed in this host`);
      const root = ext.extensionPath;
      assert.ok(!existsSync(join(root, 'src')), `${root} has src/: this is not the packaged copy`);
      for (const f of ['package.json', 'dist/extension.js', 'dist/extensionCore.js', 'dist/node-sqlite3-wasm.wasm']) {
        assert.ok(existsSync(join(root, f)), `the package lacks ${f}`);
      }
      assert.ok(!existsSync(join(root, 'dist', 'test')), 'the package ships the test bundle');
      const maps = readdirSync(join(root, 'dist')).filter((f) => f.endsWith('.map'));
      assert.deepEqual(maps, [], 'the package ships source maps');
    });

    it('activates on the workspace and indexes the vault', async () => {
      const k0 = await api();
      await k0.whenIdle();
      const state = k0.state();
      assert.equal(state.kind, 'ready', JSON.stringify(state));
      assert.equal(k0.statusBar().text, '$(database) K0maru: 3 notes');
      console.log(`K0_METRIC activationMs=${k0.activationMs.toFixed(2)}`);
    });

    it('runs k0maru.reindex from the package', async () => {
      const report = await vscode.commands.executeCommand<ScanReport>('k0maru.reindex');
      assert.ok(report, 'the command returned no report');
      assert.equal(report.total, 3);
      assert.ok(existsSync(join(workspaceRoot(), '.k0maru', 'index.db')));
    });

    it('runs the guard and a palette command from the package (the guard and tools bundles are shipped)', async () => {
      const k0 = await api();
      const file = join(workspaceRoot(), 'src', 'violation.ts');
      writeFileSync(file, 'export const pay = (stripe: any) => stripe.charges.create({});\n');
      const diags = await k0.guard.check(vscode.Uri.file(file));
      assert.deepEqual(diags.map((d) => (typeof d.code === 'object' ? d.code.value : d.code)), ['k0maru.guard.CHARGE-LOCK']);
      const r = await vscode.commands.executeCommand<{ absPath: string }>('k0maru.flushDecision', { title: 'Packaged flush works', summary: 'written from the installed extension', category: 'log' });
      assert.ok(r && existsSync(r.absPath), 'the flush command wrote nothing');
    });
  });
}
