import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIST_MCP, REPO, ensureBuilt } from '../../helpers/build';

// The official MCP Inspector CLI, as a second real client, against the bundled server (dist/mcp.mjs).
const LAUNCHER = join(REPO, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
let root: string;
let cfg: string;

before(() => {
  ensureBuilt();
  root = mkdtempSync(join(tmpdir(), 'k0-insp-'));
  cfg = mkdtempSync(join(tmpdir(), 'k0-insp-cfg-'));
  cpSync(join(REPO, 'demo'), root, { recursive: true, filter: (src) => !/index\.db/.test(src) });
});
after(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(cfg, { recursive: true, force: true });
});

function inspector(serverArgs: string[], method: string[]): { status: number | null; json: Record<string, unknown> } {
  const r = spawnSync(process.execPath, [LAUNCHER, '--cli', '-q', '--format', 'json', process.execPath, DIST_MCP, ...serverArgs, ...method], {
    encoding: 'utf8',
    env: { ...process.env, MCP_CATALOG_PATH: join(cfg, 'catalog.json'), MCP_CLIENT_CONFIG_PATH: join(cfg, 'client.json') },
    timeout: 60_000,
  });
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(r.stdout);
  } catch {
    assert.fail(`inspector printed no JSON (exit ${r.status}): ${r.stdout}\n${r.stderr}`);
  }
  return { status: r.status, json };
}

const CALLS: Record<string, Record<string, unknown>> = {
  get_project_loadout: {},
  recall_memory: { query: 'redis lock failover', limit: 2 },
  guard_check: { diff: 'diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -0,0 +1 @@\n+x := http.Get(url)\n' },
  flush_session: { title: 'Inspector smoke note', content: 'Written by the inspector test.' },
};

for (const mode of ['full', 'sidecar'] as const) {
  test(`inspector lists the tools and calls each one (${mode} mode)`, () => {
    const args = [...(mode === 'sidecar' ? ['--sidecar'] : []), '--vault', root];
    const list = inspector(args, ['--method', 'tools/list']);
    assert.equal(list.status, 0);
    const names = ((list.json.result as { tools: { name: string }[] }).tools ?? []).map((t) => t.name);
    assert.ok(names.length >= 4, names.join(','));
    for (const name of names) {
      const call = CALLS[name];
      assert.ok(call, `no smoke call for ${name}: add one`);
      const r = inspector(args, ['--method', 'tools/call', '--tool-name', name, '--tool-args-json', JSON.stringify(call)]);
      assert.equal(r.status, 0, `${name}: ${JSON.stringify(r.json).slice(0, 300)}`);
      const text = JSON.stringify(r.json);
      if (name === 'guard_check') assert.match(text, /Living ADR Guard Failure/);
      if (name === 'recall_memory') assert.match(text, /!μ:L\d\|/);
    }
  });
}
