import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectStdio, textOf } from '../../helpers/mcpClient';
import { countTokens } from '../../../src/core/tokens/count';
import { listFiles } from '../../helpers/files';

const DEMO = join(__dirname, '..', '..', '..', 'demo');
let root: string;

before(() => {
  root = mkdtempSync(join(tmpdir(), 'k0-mcp-'));
  cpSync(DEMO, root, { recursive: true, filter: (src) => !/index\.db/.test(src) });
});
after(() => rmSync(root, { recursive: true, force: true }));


const FULL_TOOLS = ['distill_session_skill', 'flush_session', 'gc_session_context', 'get_project_loadout', 'guard_check', 'inspect_log_node', 'offload_context', 'recall_memory'];
const SIDECAR_TOOLS = ['distill_session_skill', 'flush_session', 'get_project_loadout', 'guard_check', 'recall_memory'];

test('tools/list: every registered tool with the seed contract and honest annotations; sidecar mode too', async () => {
  const c = await connectStdio(['--vault', root]);
  try {
    const { tools } = await c.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), FULL_TOOLS);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert.deepEqual(byName.recall_memory.inputSchema.required, ['query']);
    assert.deepEqual((byName.flush_session.inputSchema.required as string[]).sort(), ['content', 'title']);
    assert.equal(byName.recall_memory.annotations?.readOnlyHint, true);
    assert.equal(byName.flush_session.annotations?.readOnlyHint, false);
    assert.match(byName.get_project_loadout.description!, /<300 tokens/);
  } finally {
    await c.close();
  }
  const s = await connectStdio(['--sidecar', '--vault', root]);
  try {
    const { tools } = await s.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), SIDECAR_TOOLS);
  } finally {
    await s.close();
  }
});

test('each tool answers over stdio: loadout within 300 tokens, recall wire lines, guard violation, flush + supersession hot-swap', async () => {
  // Found through CLAUDE_PROJECT_DIR with cwd '/', as Cursor and Claude Code start servers.
  const c = await connectStdio([], { cwd: '/', env: { CLAUDE_PROJECT_DIR: root } });
  try {
    const loadout = await c.client.callTool({ name: 'get_project_loadout', arguments: {} });
    const text = textOf(loadout);
    assert.match(text, /^# Context Loadout: Ledgerly/);
    assert.match(text, /\[\[adr-002-sql-explicit-columns\]\]/);
    assert.ok(countTokens(text) <= 300, `${countTokens(text)} tokens`);
    assert.equal((loadout.structuredContent as { tokens: number }).tokens, countTokens(text));

    // A call answers within its budget: while the model still loads it answers with BM25 and says so; ask until
    // the model is there (a condition, not a set time).
    const recallHybrid = () => c.client.callTool({ name: 'recall_memory', arguments: { query: 'how do we stop charging a customer twice', limit: 3 } });
    let hybrid = await recallHybrid();
    for (const end = Date.now() + 90_000; (hybrid.structuredContent as { effective_mode: string }).effective_mode !== 'hybrid' && Date.now() < end; ) hybrid = await recallHybrid();
    const hs = hybrid.structuredContent as { effective_mode: string; hits: { path: string }[] };
    assert.equal(hs.effective_mode, 'hybrid', textOf(hybrid).slice(-300));
    assert.ok(hs.hits.some((h) => /redlock|retry-storm|idempotency/.test(h.path)), JSON.stringify(hs.hits));
    const recall = await c.client.callTool({ name: 'recall_memory', arguments: { query: 'SELECT * FROM', limit: 2, mode: 'bm25' } });
    assert.match(textOf(recall), /^!μ:L3\|02_Architecture\/adr-002-sql-explicit-columns\.md\|score:[\d.]+\|links:\d+\/\d+ § /);

    const diff = 'diff --git a/src/repo.go b/src/repo.go\n--- a/src/repo.go\n+++ b/src/repo.go\n@@ -1,1 +1,2 @@\n package repo\n+var q = "SELECT * FROM payments"\n';
    const bad = await c.client.callTool({ name: 'guard_check', arguments: { diff } });
    assert.equal(bad.isError, undefined);
    assert.match(textOf(bad), /❌ Living ADR Guard Failure: 1 violation/);
    assert.match(textOf(bad), /src\/repo\.go:2: 'SELECT \* FROM'/);

    const flushed = await c.client.callTool({
      name: 'flush_session',
      arguments: { title: 'ADR-005: Allow SELECT * in reporting views', category: 'decision', supersedes: 'adr-002-sql-explicit-columns', summary: 'Reporting views may select all columns', content: '## Decision\nReporting views may use any query shape.\n' },
    });
    assert.equal(flushed.isError, undefined, textOf(flushed));
    const sc = flushed.structuredContent as { outcome: string; path: string; superseded: string[] };
    assert.equal(sc.outcome, 'created');
    assert.deepEqual(sc.superseded, ['02_Architecture/adr-002-sql-explicit-columns.md']);
    assert.match(readFileSync(join(root, '.k0maru/wiki/02_Architecture/adr-002-sql-explicit-columns.md'), 'utf8'), /status: superseded/);

    const after = await c.client.callTool({ name: 'guard_check', arguments: { diff } });
    assert.match(textOf(after), /no violations/, 'the superseded ADR rule stops at once');
    const found = await c.client.callTool({ name: 'recall_memory', arguments: { query: 'reporting views', mode: 'bm25' } });
    assert.match(textOf(found), new RegExp(sc.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  } finally {
    await c.close();
  }
});

test('hostile and invalid inputs get isError results and write nothing outside the vault; the server survives', async () => {
  const c = await connectStdio(['--vault', root]);
  const before = listFiles(root);
  try {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['flush_session', { title: 'x', content: 'y', supersedes: '../../etc/passwd' }, /PATH_OUTSIDE_VAULT|NOTE_NOT_FOUND/],
      ['flush_session', { title: 'x', content: 'y', related_notes: ['evil]] [[x'] }, /INVALID_ARGUMENT/],
      ['flush_session', { title: 'x', content: 'y', related_notes: ['a\nb'] }, /INVALID_ARGUMENT/],
      ['flush_session', { title: 'big', content: 'x'.repeat(10 * 1024 * 1024) }, /FILE_TOO_LARGE/],
      ['recall_memory', { query: '' }, /INVALID_ARGUMENT/],
      ['recall_memory', { query: 'x', limit: -3 }, /INVALID_ARGUMENT/],
    ];
    for (const [name, args, re] of cases) {
      const r = await c.client.callTool({ name, arguments: args });
      assert.equal(r.isError, true, `${name} ${JSON.stringify(args).slice(0, 80)}`);
      assert.match(textOf(r), re);
    }
    const traversal = await c.client.callTool({ name: 'flush_session', arguments: { title: '../../x', content: 'escape attempt' } });
    assert.equal(traversal.isError, undefined);
    const p = (traversal.structuredContent as { path: string }).path;
    assert.ok(!p.includes('..'), p);
    assert.ok(existsSync(join(root, '.k0maru', 'wiki', p)));
    await assert.rejects(c.client.callTool({ name: 'recall_memory', arguments: { query: 42 } }).then((r) => (r.isError ? Promise.reject(new Error(textOf(r))) : r)));
    const still = await c.client.listTools();
    assert.ok(still.tools.length >= 4);
    const added = listFiles(root).filter((f) => !before.includes(f));
    assert.ok(added.every((f) => f.startsWith('.k0maru/wiki/') || f.startsWith('.k0maru/index.db') || f.startsWith('.k0maru/flush.lock')), added.join(', '));
  } finally {
    await c.close();
  }
});

test('token-economy tools over stdio: offload a real 1,000+ line build log, inspect a slice, GC a trajectory, distill a skill', async () => {
  const log = readFileSync(join(__dirname, '..', '..', 'fixtures', 'logs', 'long-c-build-buried-error.log'), 'utf8');
  const c = await connectStdio(['--vault', root]);
  try {
    const off = await c.client.callTool({ name: 'offload_context', arguments: { raw_text: log, task_name: 'build' } });
    assert.equal(off.isError, undefined, textOf(off));
    const sc = off.structuredContent as { node_id: string; reduction: number; lines: number };
    assert.match(sc.node_id, /^node_[0-9a-f]{8}$/);
    assert.ok(sc.lines >= 1000 && sc.reduction >= 0.97, JSON.stringify(sc));
    assert.match(textOf(off), /stateDiagram-v2/);
    const slice = await c.client.callTool({ name: 'inspect_log_node', arguments: { node_id: sc.node_id, start_line: 1, end_line: 3 } });
    assert.equal(textOf(slice).trim().split('\n').length, 3);
    const bad = await c.client.callTool({ name: 'inspect_log_node', arguments: { node_id: '../../etc/passwd' } });
    assert.equal(bad.isError, true);
    const traj = readFileSync(join(__dirname, '..', '..', 'fixtures', 'trajectories', 'session-200.json'), 'utf8');
    const gc = await c.client.callTool({ name: 'gc_session_context', arguments: { trajectory_json: traj } });
    assert.equal(gc.isError, undefined, textOf(gc).slice(0, 300));
    assert.ok((gc.structuredContent as { report: { trr: number } }).report.trr >= 0.85);
    const trace = readFileSync(join(__dirname, '..', '..', 'fixtures', 'logs', 'python-keyerror.log'), 'utf8');
    const d = await c.client.callTool({ name: 'distill_session_skill', arguments: { raw_trace: trace, dry_run: true } });
    assert.equal(d.isError, undefined, textOf(d));
    assert.match(textOf(d), /^Preview \(nothing written\)/);
    assert.match(textOf(d), /KeyError/);
    const badJson = await c.client.callTool({ name: 'gc_session_context', arguments: { trajectory_json: '{not json' } });
    assert.equal(badJson.isError, true);
  } finally {
    await c.close();
  }
});
