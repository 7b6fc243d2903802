import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gcSession } from '../../../src/core/gc';
import { excerptOf, HOT_EXCERPT, splitPaste } from '../../../src/core/gc/fold';
import { tempRefsProject } from '../../helpers/files';

const project = () => tempRefsProject('k0-gcf-');
const LOGS = join(__dirname, '..', '..', 'fixtures', 'logs');
const realLog = (name: string) => readFileSync(join(LOGS, name), 'utf8');

/** A real 1,100-unit C build log (captured by scripts/capture-fixtures.sh) with one error buried in it. */
const BIG_BUILD = realLog('long-c-build-buried-error.log');

test('a pasted log in the hot window is folded by size: prose kept, head/tail/error lines with the node', async () => {
  const p = project();
  assert.ok(BIG_BUILD.split('\n').length > 1000);
  const turns = [
    { role: 'user', content: 'Fix the build.' },
    { role: 'assistant', content: 'Looking.' },
    { role: 'user', content: `CI is red. Here is the log:\n\n${BIG_BUILD}\nWhat is wrong?` },
    { role: 'assistant', content: 'Reading it.' },
    { role: 'user', content: 'Thanks.' },
  ];
  const r = await gcSession(p, { trajectory: { session_id: 's', turns } });
  const pasted = r.trajectory.turns[2];
  assert.equal(pasted.k0maru_gc?.tier, 2);
  assert.ok(pasted.content.startsWith('CI is red. Here is the log:'));
  assert.ok(pasted.content.endsWith('What is wrong?'), 'the question typed under the paste stays');
  const node = pasted.k0maru_gc!.node_id!;
  assert.match(pasted.content, new RegExp(`lines offloaded → ${node}`));
  const errorLine = BIG_BUILD.split('\n').find((l) => /error:/.test(l))!;
  assert.ok(pasted.content.includes(errorLine.trim()), 'the buried error line is kept verbatim');
  assert.ok(r.report.tokens_after < r.report.tokens_before * 0.15, `TRR ${r.report.trr}`);
  assert.equal(r.report.tiers.hot_folded, 1);
  // The other hot turns are untouched.
  assert.deepEqual(r.trajectory.turns.filter((t) => !t.k0maru_gc), turns.filter((_, i) => i !== 2));
});

test('the most recent turn keeps its own text verbatim, even when it is a big paste', async () => {
  const p = project();
  const turns = [
    { role: 'user', content: 'Fix the build.' },
    { role: 'user', content: `Here:\n\n${BIG_BUILD}` },
  ];
  const r = await gcSession(p, { trajectory: { session_id: 's', turns } });
  assert.equal(r.trajectory.turns[1].content, turns[1].content);
  assert.equal(r.report.nodes_created.length, 0);
});

test('a big tool output in the hot window is folded with its error lines; a short one is untouched', async () => {
  const p = project();
  const log = realLog('rust-e0382-use-after-move.log');
  const long = `${Array.from({ length: 200 }, (_, i) => `   Compiling dep${i} v0.1.${i}`).join('\n')}\n${log}`;
  const turns = [
    { role: 'user', content: 'Build it.' },
    { role: 'tool', tool_name: 'Bash', content: 'Build', tool_input: { command: 'cargo build' }, tool_output: long },
    { role: 'tool', tool_name: 'Bash', content: 'Status', tool_input: { command: 'git status --short' }, tool_output: ' M src/worker.rs\n' },
  ];
  const r = await gcSession(p, { trajectory: { session_id: 's', turns } });
  const out = r.trajectory.turns[1].tool_output!;
  assert.match(out, /E0382/);
  assert.match(out, /src\/worker\.rs:13:17/);
  assert.ok(out.includes(r.trajectory.turns[1].k0maru_gc!.node_id!));
  assert.deepEqual(r.trajectory.turns[2], turns[2]);
  assert.deepEqual(r.trajectory.turns[1].tool_input, turns[1].tool_input, 'hot tool inputs are not folded');
});

test('digest: verbatim facts with their turn — commands from tool_input, not the narration', async () => {
  const p = project();
  const turns = [
    { role: 'user', content: 'The parser crashes on empty input. Do not add new dependencies, the crate must stay no_std.' },
    { role: 'assistant', content: "I'll build it first." },
    { role: 'tool', tool_name: 'Bash', content: 'Build the crate in release mode', tool_input: { command: 'cargo build --release -p parser', description: 'Build the crate in release mode' }, tool_output: 'error[E0599]: no method named `peek` found\n  --> parser/src/lex.rs:42:9\n' },
    { role: 'assistant', content: 'I tried wrapping the input in an Option, but that would break the public API. Decision: return Err(Empty) from parse() before lexing.' },
    { role: 'tool', tool_name: 'Edit', content: '', tool_input: { file_path: 'parser/src/lib.rs', old_string: 'a', new_string: 'b' }, tool_output: 'ok' },
    { role: 'tool', tool_name: 'Write', content: '', tool_input: { file_path: 'parser/tests/empty.rs', content: '#[test]\nfn empty_input_is_an_error() {\n    assert!(parser::parse("").is_err());\n}\n' }, tool_output: 'ok' },
    { role: 'tool', tool_name: 'Bash', content: 'Run tests', tool_input: { command: 'cargo test -p parser' }, tool_output: 'running 1 test\ntest empty_input_is_an_error ... ok\n\ntest result: ok. 1 passed; 0 failed\n' },
    { role: 'assistant', content: 'Side note: lex.rs also panics on a lone backslash; out of scope here.' },
    { role: 'tool', tool_name: 'Bash', content: 'Commit', tool_input: { command: 'git commit -am "parser: error on empty input"' }, tool_output: '[main 1a2b3c4] parser: error on empty input\n 2 files changed\n' },
    ...Array.from({ length: 5 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `later ${i}` })),
  ];
  const r = await gcSession(p, { trajectory: { session_id: 's', turns }, hot_window: 5, warm_window: 0 });
  const d = r.digest;
  assert.match(d, /t1: "The parser crashes on empty input\."/);
  assert.match(d, /User constraints:\n- t1: "Do not add new dependencies, the crate must stay no_std\."/);
  assert.match(d, /t3: `cargo build --release -p parser`/);
  assert.doesNotMatch(d, /Commands run[^]*Build the crate in release mode/);
  assert.match(d, /Rejected approaches:\n- t4: I tried wrapping the input in an Option, but that would break the public API\./);
  assert.match(d, /t3: error\[E0599\]: no method named `peek` found/);
  assert.match(d, /Files changed: parser\/src\/lib\.rs \(t5\), parser\/tests\/empty\.rs \(t6\)/);
  assert.match(d, /t6: empty_input_is_an_error/);
  assert.match(d, /t7: test empty_input_is_an_error \.\.\. ok/);
  assert.match(d, /Final decision: t4: Decision: return Err\(Empty\) from parse\(\) before lexing\./);
  assert.match(d, /Committed: t9 \[main 1a2b3c4\] parser: error on empty input/);
  assert.match(d, /Side findings:\n- t8: Side note: lex\.rs also panics on a lone backslash; out of scope here\./);
  // The report lists every kept fact with its turn.
  const kinds = new Set(r.report.facts_kept.map((f) => f.kind));
  for (const k of ['request', 'constraint', 'rejected', 'decision', 'error', 'command', 'file', 'test', 'commit', 'side']) assert.ok(kinds.has(k as never), k);
  assert.ok(r.report.facts_kept.every((f) => f.turn >= 1 && f.turn <= 9 && (d.includes(f.text) || f.kind === 'file')));
  // Deterministic.
  const again = await gcSession(project(), { trajectory: { session_id: 's', turns }, hot_window: 5, warm_window: 0 });
  assert.equal(again.digest.replace(/node_[0-9a-f]{8}/g, ''), d.replace(/node_[0-9a-f]{8}/g, ''));
});

test('excerpt: repeated errors kept once, locations joined to their message, bounded on huge text', () => {
  const rust = Array.from({ length: 50 }, (_, i) => `error[E0308]: mismatched types\n --> src/rates.rs:${i * 5 + 3}:5\n  |`).join('\n');
  const ex = excerptOf(`${rust}\nerror[E0382]: use of moved value\n  --> src/lib.rs:20:29\n`, HOT_EXCERPT);
  assert.deepEqual(ex.errors.map((e) => e.text), ['error[E0308]: mismatched types --> src/rates.rs:3:5', 'error[E0382]: use of moved value --> src/lib.rs:20:29']);
  const huge = excerptOf(`${'x'.repeat(5_000_000)}\n`.repeat(4), HOT_EXCERPT);
  assert.equal(huge.lines, 4);
  assert.ok(huge.head.every((l) => l.length <= 400));
  assert.equal(splitPaste('short\ntext', 20), undefined);
});

test('eval set: every session has its must-survive facts in its input, labelled with a turn', () => {
  const dir = join(__dirname, '..', '..', 'fixtures', 'trajectories', 'eval');
  const names = readdirSync(dir).filter((f) => f.endsWith('.facts.json'));
  assert.ok(names.length >= 6);
  for (const f of names) {
    const facts = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    const session = JSON.parse(readFileSync(join(dir, f.replace('.facts', '')), 'utf8'));
    assert.ok(['tune', 'holdout'].includes(facts.split));
    for (const fact of facts.facts) assert.ok(fact.turn >= 1 && fact.turn <= session.turns.length, `${f}: ${fact.text}`);
  }
});

test('eval set meets the issue numbers: TRR ≥ 85 % from 20k tokens, ≥ 90 % of must-survive facts verbatim, never above the zone', async () => {
  const { evaluate } = await import('../../../bench/gcEval');
  const rows = await evaluate();
  assert.ok(rows.length >= 6);
  for (const r of rows) {
    assert.notEqual(r.pass.trr, false, `${r.name}: TRR ${r.trrPct}%`);
    assert.equal(r.pass.facts, true, `${r.name}: ${r.lost.join('; ')}`);
    assert.notEqual(r.pass.zone, false, `${r.name}: ${r.zoneAfter}`);
  }
});

test('a long typed message is not a paste: a 30-line spec from the user stays verbatim in the hot window', async () => {
  const spec = ['Here is what the importer must do:', '', ...Array.from({ length: 30 }, (_, i) => `- Requirement ${i}: every row with a missing quantity must be reported with its line number, never dropped.`)].join('\n');
  const turns = [{ role: 'user', content: spec }, { role: 'assistant', content: 'Understood.' }];
  const r = await gcSession(project(), { trajectory: { session_id: 's', turns } });
  assert.equal(r.trajectory.turns[0].content, spec);
  assert.equal(r.report.nodes_created.length, 0);
});

test('commands and changed files from other exporters: JSON-text tool_input, argv arrays, apply_patch', async () => {
  const turns = [
    { role: 'assistant', content: '', tool_name: 'shell', tool_input: '{"command":["bash","-lc","go test ./..."]}', tool_output: 'ok  \texample.com/x\t0.01s\n' },
    { role: 'assistant', content: '', tool_name: 'apply_patch', tool_input: { input: '*** Begin Patch\n*** Update File: pkg/server/handler.go\n@@\n-a\n+b\n*** End Patch' }, tool_output: 'Done' },
    ...Array.from({ length: 5 }, () => ({ role: 'user', content: 'next' })),
  ];
  const r = await gcSession(project(), { trajectory: { session_id: 's', turns }, warm_window: 0 });
  assert.match(r.digest, /t1: `bash -lc go test \.\/\.\.\.` ⇒ ok/);
  assert.match(r.digest, /Files changed: pkg\/server\/handler\.go \(t2\)/);
});

test('an assistant turn that carries a tool call keeps its decisions and rejected approaches in the digest', async () => {
  const turns = [
    { role: 'assistant', content: 'Retrying with a bigger timeout would only hide the slowness, so I rejected that. Decision: cache the DNS lookup per client.', tool_name: 'Bash', tool_input: { command: 'pytest -q tests/test_client.py' }, tool_output: '3 passed in 0.12s\n' },
    ...Array.from({ length: 5 }, () => ({ role: 'user', content: 'next' })),
  ];
  const r = await gcSession(project(), { trajectory: { session_id: 's', turns }, warm_window: 0 });
  assert.match(r.digest, /Rejected approaches:\n- t1: Retrying with a bigger timeout would only hide the slowness, so I rejected that\./);
  assert.match(r.digest, /Final decision: t1: Decision: cache the DNS lookup per client\./);
  assert.match(r.digest, /t1: `pytest -q tests\/test_client\.py` ⇒ 3 passed in 0\.12s/);
  assert.match(r.digest, /t1: 3 passed in 0\.12s/);
});
