import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectStdio, textOf } from '../../helpers/mcpClient';
import { makeRepo } from '../guard/helpers';

/**
 * Issue #18 through a real MCP SDK client over stdio: a decision names `src/legacy/pay.ts`, which a later commit
 * deletes. recall_memory's text shows the `[stale] ` wire line and its structured content carries
 * `stale: {reason, since}`; get_project_loadout reports the stale decision (⚠ and `stale`); guard_check says the
 * ADR's rule scope matches no files, without failing the check.
 */
test('recall_memory, get_project_loadout and guard_check report staleness over stdio', { timeout: 180_000 }, async () => {
  const r = makeRepo({
    '.k0maru/wiki/02_Architecture/adr-003-legacy-pay.md':
      '---\ncategory: decision\nstatus: accepted\nsummary: Legacy payments go through the gateway client\n---\n# Legacy payment gateway\n\nLegacy payments go through the gateway client in `src/legacy/pay.ts`.\n\n## Rules\n\n- deny: `fetch(` | in: src/legacy/** | because: use the gateway client\n',
    '.k0maru/wiki/02_Architecture/adr-004-refunds.md': '---\ncategory: decision\n---\n# Refunds\n\nRefunds of legacy payments are manual.\n',
    'src/legacy/pay.ts': 'export const pay = () => 1;\n',
    'src/app.ts': 'export {};\n',
    '.gitignore': '.k0maru/index.db*\n.k0maru/cache/\n',
  });
  r.commit('decisions and code');
  r.git('rm', '-q', 'src/legacy/pay.ts');
  r.commit('remove the legacy gateway');
  const mcp = await connectStdio(['--vault', r.root], { cwd: r.root });
  try {
    const rec = await mcp.client.callTool({ name: 'recall_memory', arguments: { query: 'legacy payment gateway', mode: 'bm25' } });
    assert.ok(!rec.isError, textOf(rec));
    const text = textOf(rec);
    assert.match(text, /^!μ:L3\|02_Architecture\/adr-003-legacy-pay\.md\|score:[0-9.]+\|links:0\/0 § \[stale\] /m, text);
    assert.match(text, /stale: 02_Architecture\/adr-003-legacy-pay\.md — .*src\/legacy\/pay\.ts/, 'the reason is in the text too');
    type Hit = { path: string; stale?: { reason: string; since: string } };
    const hits = (rec.structuredContent as { hits: Hit[] }).hits;
    const stale = hits.find((h) => h.path.endsWith('adr-003-legacy-pay.md'))!;
    assert.deepEqual(Object.keys(stale.stale ?? {}).sort(), ['reason', 'since']);
    assert.match(stale.stale!.reason, /src\/legacy\/pay\.ts/);
    assert.match(stale.stale!.since, /^[0-9a-f]{7,}$/);
    assert.equal(hits.find((h) => h.path.endsWith('adr-004-refunds.md'))?.stale, undefined);

    const lo = await mcp.client.callTool({ name: 'get_project_loadout', arguments: {} });
    assert.ok(!lo.isError, textOf(lo));
    assert.match(textOf(lo), /⚠ \[\[adr-003-legacy-pay\]\]/);
    const sc = lo.structuredContent as { stale: { path: string; reason: string; since: string }[]; tokens: number; staleness: { enabled: boolean } };
    assert.deepEqual(sc.stale.map((s) => s.path), ['02_Architecture/adr-003-legacy-pay.md']);
    assert.equal(sc.staleness.enabled, true);
    assert.ok(sc.tokens <= 300);

    const g = await mcp.client.callTool({ name: 'guard_check', arguments: {} });
    assert.ok(!g.isError, textOf(g));
    const gs = g.structuredContent as { ok: boolean; diagnostics: { code: string; message: string }[] };
    assert.equal(gs.ok, true, 'a scope that matches nothing never blocks');
    assert.ok(gs.diagnostics.some((d) => d.code === 'rule.scope-matches-nothing' && d.message.startsWith('rule scope matches no files') && d.message.includes('[[adr-003-legacy-pay]]')), JSON.stringify(gs.diagnostics));
    assert.match(textOf(g), /rule scope matches no files/);
  } finally {
    await mcp.close();
    r.dispose();
  }
});
