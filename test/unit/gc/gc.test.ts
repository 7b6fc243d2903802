import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gcSession, type GcResult } from '../../../src/core/gc';
import { listFiles, tempRefsProject } from '../../helpers/files';
import { runCliCaptured } from '../../helpers/cli';

const DIR = join(__dirname, '..', '..', 'fixtures', 'trajectories');
const SESSION = readFileSync(join(DIR, 'session-200.json'), 'utf8');
const FACTS: Record<'files' | 'codes' | 'decisions' | 'commands', string[]> = JSON.parse(readFileSync(join(DIR, 'session-200.facts.json'), 'utf8'));

const project = () => tempRefsProject('k0-gc-');


test('200-turn trajectory: TRR ≥ 85%, the hot window is untouched, report is consistent', async () => {
  const p = project();
  const r = await gcSession(p, { trajectory_json: SESSION });
  const input = JSON.parse(SESSION);
  assert.equal(r.report.turns_before, 200);
  assert.ok(r.report.trr >= 0.85, `TRR ${r.report.trr}`);
  assert.ok(r.report.tokens_after < r.report.tokens_before);
  assert.deepEqual(r.trajectory.turns.slice(-5), input.turns.slice(-5));
  assert.equal(r.report.tiers.hot, 5);
  assert.ok(r.report.nodes_created.length >= 5);
  assert.equal(r.report.share_after, r.report.tokens_after / 128000);
  assert.equal(r.report.in_smart_zone, r.report.share_after >= 0.15 && r.report.share_after <= 0.6);
  const digestTurn = r.trajectory.turns.find((t) => t.k0maru_gc?.tier === 4)!;
  assert.equal(digestTurn.role, 'system');
  assert.match(digestTurn.content, /^\[k0maru GC digest/);
  assert.equal(digestTurn.content, r.digest);
  // Every node the GC reports was created through the offload engine and is in the ledger.
  const ledger = readFileSync(join(p.refsDir, 'ledger.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  for (const n of r.report.nodes_created) assert.ok(ledger.some((e) => e.node_id === n.node_id && e.source === 'gc'));
});

function survives(r: GcResult, p: ReturnType<typeof project>, fact: string): boolean {
  if (JSON.stringify(r.trajectory).includes(JSON.stringify(fact).slice(1, -1))) return true;
  for (const n of r.report.nodes_created) {
    const f = readdirSync(p.refsDir).find((x) => x.endsWith(`_${n.node_id}.log`));
    if (f && readFileSync(join(p.refsDir, f), 'utf8').includes(fact)) return true;
  }
  return false;
}

test('every must-survive fact (file path, error code, decision, command) survives in the digest or a node', async () => {
  const p = project();
  const r = await gcSession(p, { trajectory_json: SESSION });
  const lost: string[] = [];
  for (const [kind, list] of Object.entries(FACTS)) for (const f of list) if (!survives(r, p, f)) lost.push(`${kind}: ${f}`);
  assert.deepEqual(lost, []);
  // The digest itself (not just the hot window) carries decisions, commands and files.
  for (const d of FACTS.decisions.slice(0, 10)) assert.ok(r.digest.includes(d), d);
  for (const c of FACTS.commands) assert.ok(r.digest.includes(c), c);
  for (const f of FACTS.files) assert.ok(r.digest.includes(f), f);
});

test('the check above can fail: a fact that is not in the session is not found', async () => {
  const p = project();
  const r = await gcSession(p, { trajectory_json: SESSION });
  assert.equal(survives(r, p, 'src/never_mentioned.rs'), false);
});

test('repeated dumps are collapsed to one instance plus a count (tier 3), big outputs folded (tier 2)', async () => {
  const p = project();
  const turns = [];
  const dump = readFileSync(join(__dirname, '..', '..', 'fixtures', 'logs', 'python-chained-exception.log'), 'utf8');
  for (let i = 0; i < 4; i++) {
    turns.push({ role: 'tool', tool_name: 'bash', content: 'python3 chained_main.py', tool_output: dump });
    turns.push({ role: 'assistant', content: `attempt ${i}` });
  }
  for (let i = 0; i < 5; i++) turns.push({ role: 'user', content: `hot ${i}` });
  const r = await gcSession(p, { trajectory: { session_id: 's1', turns }, hot_window: 5, warm_window: 100 });
  const tool = r.trajectory.turns.filter((t) => t.role === 'tool');
  assert.equal(tool.length, 4);
  assert.equal(tool[0].k0maru_gc?.tier, 2);
  assert.equal(tool[0].k0maru_gc?.seen, 4);
  assert.match(tool[0].tool_output!, /seen 4×/);
  // The fold names the exception the run died with (issue 15: a chain is reported final exception first).
  assert.match(tool[0].tool_output!, /FileNotFoundError at .*chained_main\.py:14/);
  for (const t of tool.slice(1)) {
    assert.equal(t.k0maru_gc?.tier, 3);
    assert.equal(t.k0maru_gc?.same_as_turn, 1);
  }
  assert.equal(r.report.tiers.collapsed, 3);
  assert.equal(readdirSync(p.refsDir).filter((f) => f.endsWith('.log')).length, 1);
});

test('outputs at or under the threshold are not folded; threshold is honoured', async () => {
  const p = project();
  const out = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
  const turns = [{ role: 'tool', tool_name: 'bash', content: 'ls', tool_output: out }, ...Array.from({ length: 5 }, () => ({ role: 'user', content: 'x' }))];
  const r = await gcSession(p, { trajectory: { session_id: 's', turns }, warm_window: 10 });
  assert.equal(r.trajectory.turns[0].tool_output, out);
  const r2 = await gcSession(p, { trajectory: { session_id: 's', turns }, warm_window: 10, threshold: 19 });
  assert.match(r2.trajectory.turns[0].tool_output!, /20 lines offloaded → node_[0-9a-f]{8}/);
});

test('bad input: invalid JSON, wrong shapes and bad options give clear INVALID_ARGUMENT errors', async () => {
  const p = project();
  const cases: [unknown, RegExp][] = [
    ['{not json', /not valid JSON/],
    ['', /empty/],
    ['[]', /invalid trajectory/],
    [JSON.stringify({ turns: [] }), /session_id/],
    [JSON.stringify({ session_id: 's', turns: [{ content: 'no role' }] }), /turns\.0\.role/],
    [JSON.stringify({ session_id: 's', turns: [{ role: 'user', content: 42 }] }), /turns\.0\.content/],
  ];
  for (const [json, re] of cases) {
    await assert.rejects(gcSession(p, { trajectory_json: json as string }), (e: Error & { code?: string }) => e.code === 'INVALID_ARGUMENT' && re.test(e.message), String(json));
  }
  await assert.rejects(gcSession(p, { trajectory: { session_id: 's', turns: [] }, hot_window: -1 }), /hot_window/);
  await assert.rejects(gcSession(p, { trajectory: { session_id: 's', turns: [] }, threshold: 1.5 }), /threshold/);
  assert.equal(listFiles(p.projectRoot).length, 0, 'nothing written for invalid input');
});

test('unknown roles are kept verbatim and flagged, even when old', async () => {
  const p = project();
  const odd = { role: 'critic', content: 'Never use unwrap() in the worker.', extra: { score: 3 } };
  const turns = [odd, ...Array.from({ length: 30 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i} touches src/m${i}.rs` }))];
  const r = await gcSession(p, { trajectory: { session_id: 's', turns } });
  assert.deepEqual(r.report.unknown_roles, [{ turn: 1, role: 'critic' }]);
  assert.deepEqual(r.trajectory.turns.find((t) => t.role === 'critic'), odd);
  assert.ok(r.digest.includes('src/m0.rs'));
});

test('empty and tiny trajectories come back unchanged', async () => {
  const p = project();
  const r = await gcSession(p, { trajectory: { session_id: 's', turns: [] } });
  assert.deepEqual(r.trajectory.turns, []);
  assert.equal(r.report.trr, 0);
  const turns = [{ role: 'user', content: 'hi' }];
  const r2 = await gcSession(p, { trajectory: { session_id: 's', turns } });
  assert.deepEqual(r2.trajectory.turns, turns);
});

test('CLI: k0maru gc reads stdin and prints the report; --json gives the compacted trajectory', async () => {
  const root = mkdtempSync(join(tmpdir(), 'k0-gc-cli-'));
  mkdirSync(join(root, '.k0maru', 'wiki'), { recursive: true });
  const run = (args: string[], stdinText?: string) => runCliCaptured(args, { cwd: root, stdin: stdinText });
  const a = await run(['gc'], SESSION);
  assert.equal(a.code, 0);
  assert.match(a.out, /compacted: 200 → \d+ turns, \d+ → \d+ tokens \(TRR \d+\.\d%\)/);
  assert.match(a.err, /unknown role 'reviewer'/);
  const b = await run(['gc', '--json'], SESSION);
  const parsed = JSON.parse(b.out);
  assert.equal(parsed.report.turns_before, 200);
  assert.ok(Array.isArray(parsed.trajectory.turns));
  const c = await run(['gc'], '{"session_id": 1}');
  assert.equal(c.code, 2);
  assert.match(c.err, /INVALID_ARGUMENT/);
});

test('GC of an already compacted trajectory keeps the earlier digest and every fact', async () => {
  const p = project();
  const first = await gcSession(p, { trajectory_json: SESSION });
  // The session goes on: 40 more turns, then a second GC.
  const more = Array.from({ length: 40 }, (_, i) => (i % 2 ? { role: 'assistant', content: `Step ${i}: edited src/extra_${i}.rs` } : { role: 'user', content: `continue ${i}` }));
  const second = await gcSession(p, { trajectory: { session_id: first.trajectory.session_id, turns: [...first.trajectory.turns, ...more] } });
  const oldDigest = second.trajectory.turns.find((t) => t.content === first.digest);
  assert.ok(oldDigest, 'the first digest is kept verbatim');
  const lost: string[] = [];
  for (const [kind, list] of Object.entries(FACTS)) for (const f of list) if (!survives(second, p, f)) lost.push(`${kind}: ${f}`);
  assert.deepEqual(lost, []);
  assert.ok(second.digest.includes('src/extra_1.rs'));
});

test('a few-line but huge tool output (1 MB line) is folded by size, and junk text stays fast', async () => {
  const p = project();
  const blob = 'a+'.repeat(500_000);
  const turns = [
    { role: 'tool', tool_name: 'bash', content: 'cat bundle.min.js', tool_output: `${blob}\nsrc/app/bundle.min.js: done\n` },
    { role: 'assistant', content: 'a+'.repeat(200_000) + ' We will never use the minified bundle in tests.' },
    ...Array.from({ length: 5 }, (_, i) => ({ role: 'user', content: `hot ${i}` })),
  ];
  const t0 = Date.now();
  const r = await gcSession(p, { trajectory: { session_id: 's', turns }, warm_window: 0 });
  assert.ok(Date.now() - t0 < 20_000);
  assert.equal(r.report.nodes_created.length, 1);
  assert.equal(r.report.nodes_created[0].lines, 2);
  assert.ok(r.report.tokens_after < r.report.tokens_before / 10);
  assert.ok(r.digest.includes('We will never use the minified bundle in tests.'), 'decisions in long prose are kept');
});

test('above the Smart-Zone with the default warm window, the warm turns are digested too', async () => {
  const p = project();
  const prose = (i: number) => `Turn ${i}: we looked at src/mod_${i}.rs again. ` + 'The parser state machine keeps its position in a cursor. '.repeat(20);
  const turns = Array.from({ length: 12 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: prose(i) }));
  const loose = await gcSession(p, { trajectory: { session_id: 's', turns }, hot_window: 1, context_window: 100_000 });
  assert.equal(loose.report.tightened, false);
  assert.equal(loose.trajectory.turns.length, 1 + 2 + 1);
  const tight = await gcSession(p, { trajectory: { session_id: 's', turns }, hot_window: 1, context_window: 1000 });
  assert.equal(tight.report.tightened, true);
  assert.equal(tight.trajectory.turns.length, 2, 'digest + hot window');
  assert.deepEqual(tight.trajectory.turns[1], turns[11]);
  for (let i = 0; i < 11; i++) assert.ok(tight.digest.includes(`src/mod_${i}.rs`));
  // An explicit warm window is honoured even above the zone.
  const pinned = await gcSession(p, { trajectory: { session_id: 's', turns }, hot_window: 1, warm_window: 2, context_window: 1000 });
  assert.equal(pinned.report.tightened, false);
  assert.equal(pinned.report.zone, 'above');
});
