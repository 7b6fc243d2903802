import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { CHROMIUM_PATH, runExtensionTests, type ExtensionTestResult } from './browser';
import { codeServerEntry, startCodeServer } from './codeServer';

export const REPO_ROOT = resolve(__dirname, '..', '..', '..');
export const TESTS_BUNDLE = join(REPO_ROOT, 'dist', 'test', 'integration', 'index.js');
export const EXTENSION_BUNDLE = join(REPO_ROOT, 'dist', 'extension.js');
export const FIXTURES = join(REPO_ROOT, 'test', 'fixtures');

export interface HostSuiteOptions {
  /** Fixture folder copied to a temp dir and opened as the workspace. */
  fixture: string;
  /** Extension loaded in development mode (the repo itself, or a stub when testing an installed .vsix). */
  extensionPath: string;
  /** Which in-host suite test/integration/index.ts registers (passed through the server's environment). */
  suite: 'development' | 'packaged' | 'untrusted' | 'no-vault' | 'next-host' | 'console-ui' | 'stale-progress';
  /** Keep Workspace Trust on, so the folder opens in Restricted Mode. */
  workspaceTrust?: boolean;
  /** Run on another code-server install than the default 4.100.3 (see codeServer.ts). */
  host?: { entry: string; node: string };
  /** Runs in the scratch folder before the server starts; may return an extensions folder to serve. */
  prepare?: (scratch: string) => Promise<{ extensionsDir?: string }>;
  /** How long the in-host suite may run before the session counts as hung (default 180 s). */
  hostTimeoutMs?: number;
  /** Drives the workbench page while the in-host suite runs (see ExtensionTestRun.drive); gets the workspace copy. */
  drive?: (page: Page, ctx: { workspace: string; hostLog: () => string[] }) => Promise<void>;
}

/** Fails with the command that fixes it when a prerequisite is missing: no silent skips. */
export function assertPrerequisites(): void {
  for (const [what, path, fix] of [
    ['code-server', codeServerEntry(), 'bash scripts/setup-code-server.sh'],
    ['chromium', CHROMIUM_PATH, 'apt-get install chromium'],
    ['the extension bundle', EXTENSION_BUNDLE, 'node esbuild.mjs'],
    ['the in-host test bundle', TESTS_BUNDLE, 'node esbuild.mjs'],
  ]) {
    assert.ok(existsSync(path), `${what} not found at ${path}; run \`${fix}\``);
  }
}

/**
 * One full session: scratch folder, workspace copy, code-server, chromium on the workbench, in-host suite.
 * Prints the host log and timings, and asserts the suite exited 0.
 */
export async function runHostSuite(opts: HostSuiteOptions): Promise<ExtensionTestResult> {
  assertPrerequisites();
  const scratch = mkdtempSync(join(tmpdir(), 'k0-int-'));
  const workspace = join(scratch, basename(opts.fixture));
  cpSync(opts.fixture, workspace, { recursive: true });
  try {
    const { extensionsDir } = (await opts.prepare?.(scratch)) ?? {};
    const t0 = Date.now();
    const server = await startCodeServer({ tmpDir: join(scratch, 'server'), extensionsDir, workspaceTrust: opts.workspaceTrust, env: { K0_INTEGRATION_SUITE: opts.suite }, host: opts.host });
    const serverMs = Date.now() - t0;
    const hostLog: string[] = [];
    try {
      const result = await runExtensionTests({
        onLog: (level, message) => hostLog.push(`[${level}] ${message}`),
        drive: opts.drive && ((page) => opts.drive!(page, { workspace, hostLog: () => hostLog })),
        origin: server.origin,
        workspace,
        extensionPath: opts.extensionPath,
        testsPath: TESTS_BUNDLE,
        timeoutMs: opts.hostTimeoutMs ?? 180_000,
        screenshotOnFailure: join(REPO_ROOT, 'test-results', `integration-${opts.suite}-${new Date().toISOString().replace(/[:.]/g, '-')}.png`),
      });
      const logText = result.log.join('\n');
      console.log(`--- extension host log (${opts.suite}) ---\n${logText}\n--- end ---`);
      const metric = /K0_METRIC activationMs=([\d.]+)/.exec(logText);
      console.log(`code-server ready in ${serverMs} ms; tests ended (${result.ended}) after ${result.durationMs} ms; activate() took ${metric?.[1] ?? '?'} ms`);
      console.log(`status bar texts seen: ${JSON.stringify(result.statusBarTexts)}`);
      const why = result.ended === 'timeout'
        ? 'the workbench never reported an exit code (extension host did not start or tests hung)'
        : `in-host tests exited with code ${result.exitCode}`;
      const shot = result.screenshot ? `; screenshot: ${result.screenshot}` : '';
      if (result.driveError) throw result.driveError;
      assert.equal(result.exitCode, 0, `${why}${shot}\n--- code-server output ---\n${server.output().slice(-4000)}`);
      return result;
    } finally {
      await server.close();
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
