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
  offload_context: { raw_text: Array.from({ length: 60 }, (_, i) => (i === 30 ? "error[E0382]: borrow of moved value: `v`\n  --> src/main.rs:7:20" : `   Compiling crate${i} v0.1.0`)).join('\n') },
  inspect_log_node: {}, // filled with the node id offload_context returned
  gc_session_context: { trajectory_json: JSON.stringify({ session_id: 's1', turns: [{ role: 'user', content: 'fix the build' }, { role: 'assistant', content: 'ran cargo build' }] }) },
  distill_session_skill: { raw_trace: 'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n    print(d["missing"])\nKeyError: \'missing\'', dry_run: true },
};

for (const mode of ['full', 'sidecar'] as const) {
  test(`inspector lists the tools and calls each one (${mode} mode)`, () => {
    const args = [...(mode === 'sidecar' ? ['--sidecar'] : []), '--vault', root];
    const list = inspector(args, ['--method', 'tools/list']);
    assert.equal(list.status, 0);
    const names = ((list.json.result as { tools: { name: string }[] }).tools ?? []).map((t) => t.name);
    assert.equal(names.length, mode === 'full' ? 8 : 5, names.join(','));
    // offload first: inspect_log_node needs the node id it returns
    const ordered = [...names].sort((a, b) => (a === 'inspect_log_node' ? 1 : 0) - (b === 'inspect_log_node' ? 1 : 0));
    let nodeId = '';
    for (const name of ordered) {
      const call = name === 'inspect_log_node' ? { node_id: nodeId } : CALLS[name];
      assert.ok(call, `no smoke call for ${name}: add one`);
      const r = inspector(args, ['--method', 'tools/call', '--tool-name', name, '--tool-args-json', JSON.stringify(call)]);
      assert.equal(r.status, 0, `${name}: ${JSON.stringify(r.json).slice(0, 300)}`);
      const text = JSON.stringify(r.json);
      if (name === 'guard_check') assert.match(text, /Living ADR Guard Failure/);
      if (name === 'recall_memory') assert.match(text, /!μ:L\d\|/);
      if (name === 'offload_context') nodeId = /node_[0-9a-f]{8}/.exec(text)?.[0] ?? '';
      if (name === 'inspect_log_node') assert.match(text, /E0382/);
    }
  });
}
