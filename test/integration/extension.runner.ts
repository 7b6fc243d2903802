// Runs the in-host suite (test/integration/index.ts, bundled by `node esbuild.mjs`) inside a real VS Code
// extension host: code-server serves the workbench, headless chromium opens it, and the workbench reports the
// host's log and exit code back to us. Missing prerequisites fail the test with the command that fixes them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startCodeServer, codeServerEntry } from './harness/codeServer';
import { CHROMIUM_PATH, runExtensionTests } from './harness/browser';

const REPO_ROOT = resolve(__dirname, '..', '..');
const TESTS_BUNDLE = join(REPO_ROOT, 'dist', 'test', 'integration', 'index.js');
const EXTENSION_BUNDLE = join(REPO_ROOT, 'dist', 'extension.js');
const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'workspace-basic');

test('extension in a real VS Code host (code-server 4.100.3 + chromium)', { timeout: 300_000 }, async () => {
  for (const [what, path, fix] of [
    ['code-server', codeServerEntry(), 'bash scripts/setup-code-server.sh'],
    ['chromium', CHROMIUM_PATH, 'apt-get install chromium'],
    ['the extension bundle', EXTENSION_BUNDLE, 'node esbuild.mjs'],
    ['the in-host test bundle', TESTS_BUNDLE, 'node esbuild.mjs'],
  ]) {
    assert.ok(existsSync(path), `${what} not found at ${path}; run \`${fix}\``);
  }

  const tmp = mkdtempSync(join(tmpdir(), 'k0-int-'));
  const workspace = join(tmp, 'workspace-basic');
  cpSync(FIXTURE, workspace, { recursive: true });
  const t0 = Date.now();
  const server = await startCodeServer({ tmpDir: join(tmp, 'server') });
  const serverMs = Date.now() - t0;
  try {
    const result = await runExtensionTests({
      origin: server.origin,
      workspace,
      extensionPath: REPO_ROOT,
      testsPath: TESTS_BUNDLE,
      timeoutMs: 180_000,
      screenshotOnFailure: join(REPO_ROOT, 'test-results', `integration-${new Date().toISOString().replace(/[:.]/g, '-')}.png`),
    });
    const hostLog = result.log.join('\n');
    console.log(`--- extension host log ---\n${hostLog}\n--- end ---`);
    const metric = /K0_METRIC activationMs=([\d.]+)/.exec(hostLog);
    console.log(`code-server ready in ${serverMs} ms; tests ended (${result.ended}) after ${result.durationMs} ms; activate() took ${metric?.[1] ?? '?'} ms`);
    console.log(`status bar texts seen: ${JSON.stringify(result.statusBarTexts)}`);
    const why = result.ended === 'timeout'
      ? 'the workbench never reported an exit code (extension host did not start or tests hung)'
      : `in-host tests exited with code ${result.exitCode}`;
    const shot = result.screenshot ? `; screenshot: ${result.screenshot}` : '';
    assert.equal(result.exitCode, 0, `${why}${shot}\n--- code-server output ---\n${server.output().slice(-4000)}`);
    // What a person sees: the item rendered in the workbench's status bar with the fixture's note count.
    assert.ok(
      result.statusBarTexts.some((t) => /^K0maru: 3 notes$/.test(t)),
      `the status bar never showed "K0maru: 3 notes"; it showed: ${JSON.stringify(result.statusBarTexts)}`,
    );
  } finally {
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  }
});
