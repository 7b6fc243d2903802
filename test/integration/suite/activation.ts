import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { api, EXTENSION_ID, workspaceRoot } from './helpers';

export function registerActivationTests(): void {
  describe('activation', () => {
    it('activates by itself on a workspace that has a .k0maru folder', async () => {
      const k0 = await api();
      assert.equal(k0.projectRoot, workspaceRoot());
    });

    it('measures and reports its activation time', async () => {
      const k0 = await api();
      assert.ok(Number.isFinite(k0.activationMs) && k0.activationMs > 0, `activationMs = ${k0.activationMs}`);
      // The runner picks this line out of the host log and prints it with the results.
      console.log(`K0_METRIC activationMs=${k0.activationMs.toFixed(2)}`);
    });

    it('keeps the core out of the activation bundle (loaded lazily from dist/extensionCore.js)', async () => {
      await api();
      const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
      const main = readFileSync(join(ext.extensionPath, 'dist', 'extension.js'), 'utf8');
      for (const heavy of ['node-sqlite3-wasm', 'markdown-it', 'hash-wasm']) {
        assert.ok(!main.includes(heavy), `dist/extension.js bundles ${heavy}: import the core lazily (see src/extension/core.ts)`);
      }
      const core = readFileSync(join(ext.extensionPath, 'dist', 'extensionCore.js'), 'utf8');
      assert.ok(core.includes('node-sqlite3-wasm'), 'dist/extensionCore.js does not hold the index code');
    });

    it('registers every command the manifest contributes', async () => {
      await api();
      const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
      const contributed: string[] = (ext.packageJSON.contributes?.commands ?? []).map((c: { command: string }) => c.command);
      assert.ok(contributed.includes('k0maru.reindex'), `manifest commands: ${contributed.join(', ')}`);
      const registered = new Set(await vscode.commands.getCommands(true));
      const missing = contributed.filter((c) => !registered.has(c));
      assert.deepEqual(missing, [], `contributed but not registered: ${missing.join(', ')}`);
    });
  });
}
