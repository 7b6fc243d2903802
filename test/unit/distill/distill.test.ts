import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { distillSkill, ERROR_FAMILIES, matchFamily, renderSkill, skillName, validateSkill } from '../../../src/core/distill';
import { offloadLog } from '../../../src/core/offload';
import { pathsForProject } from '../../../src/core/vault/paths';
import { parseNote } from '../../../src/core/vault/markdown';
import { EXPECTED, fixture } from '../offload/fixtures';
import { listFiles } from '../../helpers/files';
import { runCliCaptured } from '../../helpers/cli';

function project() {
  const root = mkdtempSync(join(tmpdir(), 'k0-distill-'));
  mkdirSync(join(root, '.k0maru', 'wiki'), { recursive: true });
  const hermes = mkdtempSync(join(tmpdir(), 'k0-hermes-'));
  return { root, paths: pathsForProject(root), env: { HERMES_HOME: hermes, HOME: join(root, 'no-home') } as NodeJS.ProcessEnv, hermes };
}


for (const ex of EXPECTED) {
  test(`classification of ${ex.file}: ${ex.runtime} → ${ex.family}`, async () => {
    const { paths } = project();
    const r = await distillSkill(paths, { raw_trace: fixture(ex.file), dry_run: true });
    assert.equal(r.runtime, ex.runtime);
    assert.equal(r.family, ex.family);
    assert.equal(r.primary?.code, ex.code);
    if (ex.root) assert.ok(r.primary?.location?.includes(ex.root), r.primary?.location);
    for (const h of ['## Symptom signature', '## Root cause', '## Diagnostic steps', '## Fix pattern', '## Verify', '## Source']) assert.ok(r.content.includes(h), h);
  });
}

test('dry_run writes nothing anywhere', async () => {
  const { root, paths, env, hermes } = project();
  const r = await distillSkill(paths, { raw_trace: fixture('go-deadlock.log'), dry_run: true, target: 'hermes' }, { env });
  const o = await distillSkill(paths, { raw_trace: fixture('go-deadlock.log'), dry_run: true, target: 'omp' }, { env });
  assert.equal(o.export?.path, '.omp/skills/go-deadlock/SKILL.md');
  assert.equal(r.note, undefined);
  assert.equal(r.export?.outcome, 'preview');
  assert.equal(r.export?.path, join(hermes, 'skills', 'go-deadlock', 'SKILL.md'));
  assert.ok(validateSkill(r.export!.text, 'hermes', 'go-deadlock').ok);
  assert.deepEqual(listFiles(root), []);
  assert.deepEqual(listFiles(hermes), []);
});

test('writes a skill note through the FlushEngine with the playbook sections', async () => {
  const { root, paths } = project();
  const r = await distillSkill(paths, { raw_trace: fixture('python-chained-exception.log'), tags: ['checkout'], related_notes: ['payment-gateway'], context_hint: 'seen after the SKU import' });
  assert.equal(r.note?.outcome, 'created');
  const text = readFileSync(join(paths.notesRoot, r.note!.path), 'utf8');
  const note = parseNote(text, r.note!.path);
  assert.equal(note.frontmatter.category, 'skill');
  assert.ok((note.tags as string[]).includes('checkout'));
  assert.match(text, /Exception chain \(final exception first, then its causes\): `FileNotFoundError` at `[^`]*chained_main\.py:14` ← `CheckoutError` at `[^`]*checkout\.py:19` ← `KeyError` at `[^`]*pricing\.py:13`/);
  assert.ok(text.includes('Context: seen after the SKU import'));
  assert.ok(text.includes('[[payment-gateway]]'));
  // The trace had more than 30 lines: it was offloaded so the playbook points at the raw evidence.
  assert.match(text, /Offloaded log `(node_[0-9a-f]{8})` \(\d+ lines; raw text via `inspect_log_node` or `k0maru inspect \1`\)/);
  assert.ok(listFiles(root).every((f) => f.startsWith('.k0maru/')), listFiles(root).join(','));
});

test('Hermes export: $HERMES_HOME/skills/<name>/SKILL.md, valid, idempotent, never overwrites a different skill', async () => {
  const { paths, env, hermes } = project();
  const a = await distillSkill(paths, { raw_trace: fixture('cpp-asan-heap-use-after-free.log'), target: 'hermes' }, { env });
  assert.equal(a.export?.path, join(hermes, 'skills', 'heap-use-after-free', 'SKILL.md'));
  assert.equal(a.export?.outcome, 'created');
  const text = readFileSync(a.export!.path, 'utf8');
  assert.deepEqual(validateSkill(text, 'hermes', 'heap-use-after-free').errors, []);
  const b = await distillSkill(paths, { raw_trace: fixture('cpp-asan-heap-use-after-free.log'), target: 'hermes' }, { env });
  assert.equal(b.export?.outcome, 'up_to_date');
  const c = await distillSkill(paths, { raw_trace: fixture('cpp-asan-heap-use-after-free.log'), target: 'hermes', context_hint: 'different run' }, { env });
  assert.equal(c.export?.outcome, 'versioned');
  assert.equal(c.export?.name, 'heap-use-after-free-v2');
  assert.ok(validateSkill(readFileSync(c.export!.path, 'utf8'), 'hermes', 'heap-use-after-free-v2').ok);
  assert.equal(readFileSync(a.export!.path, 'utf8'), text, 'the first skill is untouched');
});

test('omp export: <project>/.omp/skills/<name>/SKILL.md valid as omp and as Agent Skills', async () => {
  const { root, paths, env } = project();
  const r = await distillSkill(paths, { raw_trace: fixture('node-typeerror-undefined.log'), target: 'omp', title: 'Node: profile is undefined!' }, { env });
  assert.equal(r.export?.path, '.omp/skills/node-profile-is-undefined/SKILL.md');
  const text = readFileSync(join(root, r.export!.path), 'utf8');
  assert.deepEqual(validateSkill(text, 'omp', 'node-profile-is-undefined').errors, []);
  assert.deepEqual(validateSkill(text, 'agent-skills', 'node-profile-is-undefined').errors, []);
});

test('node_id input: distills an offloaded log; bad ids are refused', async () => {
  const { paths } = project();
  const off = await offloadLog(paths, { text: fixture('long-c-build-buried-error.log'), threshold: 30 });
  const r = await distillSkill(paths, { node_id: off.nodeId, dry_run: true });
  assert.equal(r.family, 'c-undeclared-identifier');
  assert.equal(r.primary?.location, 'src/mod_0551.c:7:10');
  assert.ok(r.content.includes("‘totl’ undeclared"));
  assert.ok(r.content.includes(off.nodeId!));
  await assert.rejects(distillSkill(paths, { node_id: '../../etc/passwd' }), (e: Error & { code?: string }) => e.code === 'INVALID_ARGUMENT');
  await assert.rejects(distillSkill(paths, { node_id: 'node_00000000' }), (e: Error & { code?: string }) => e.code === 'NODE_NOT_FOUND');
});

test('bad input: empty trace, no input, unknown fields, bad target, binary junk', async () => {
  const { root, paths, env, hermes } = project();
  await assert.rejects(distillSkill(paths, { raw_trace: '   \n' }), /empty/);
  await assert.rejects(distillSkill(paths, {}), /raw_trace or node_id/);
  await assert.rejects(distillSkill(paths, { raw_trace: 'x', target: 'vscode' }), /target/);
  await assert.rejects(distillSkill(paths, { raw_trace: 'x', bogus: 1 }), /bogus/);
  await assert.rejects(distillSkill(paths, { raw_trace: 'x', title: 'a'.repeat(500) }), /title/);
  const junk = Buffer.from(Array.from({ length: 4000 }, (_, i) => (i * 7919) % 256)).toString('latin1');
  const r = await distillSkill(paths, { raw_trace: junk, dry_run: true, target: 'hermes' }, { env });
  assert.equal(r.runtime, 'unknown');
  assert.ok(validateSkill(r.export!.text, 'hermes', r.export!.name).ok);
  assert.deepEqual(listFiles(root), []);
  assert.deepEqual(listFiles(hermes), []);
});

test('skill validator rejects what the formats forbid', () => {
  const good = renderSkill('hermes', { name: 'go-nil-map', description: 'Fix nil map writes.', body: '# x\n\nbody', tags: ['go'] });
  assert.ok(validateSkill(good, 'hermes', 'go-nil-map').ok);
  assert.match(validateSkill(good, 'hermes', 'other').errors.join(), /folder name/);
  const bad = (fm: string, body = 'body') => `---\n${fm}\n---\n\n${body}\n`;
  assert.match(validateSkill(bad('name: Go_Nil\ndescription: d'), 'agent-skills', 'Go_Nil').errors.join(), /allowed set/);
  assert.match(validateSkill(bad(`name: a\ndescription: ${'d'.repeat(1025)}`), 'agent-skills', 'a').errors.join(), /max 1024/);
  assert.match(validateSkill(bad('name: a'), 'omp', 'a').errors.join(), /description is required/);
  assert.match(validateSkill(bad('name: a\ndescription: d', ''), 'hermes', 'a').errors.join(), /body/);
  assert.match(validateSkill(bad('name: a\ndescription: d\nversion: 1'), 'agent-skills', 'a').errors.join(), /unknown frontmatter key "version"/);
  assert.match(validateSkill('no frontmatter', 'hermes', 'a').errors.join(), /frontmatter/);
  assert.match(validateSkill(bad(`name: ${'a'.repeat(65)}\ndescription: d`), 'agent-skills', 'a'.repeat(65)).errors.join(), /longer than 64/);
  assert.equal(skillName('../../Évil Name!!'), 'evil-name');
  assert.equal(skillName('x'.repeat(100)).length, 64);
});

test('the family table is well-formed: ids are valid skill names, unique, each family has steps', () => {
  const ids = new Set<string>();
  for (const f of ERROR_FAMILIES) {
    assert.equal(skillName(f.id), f.id);
    assert.ok(!ids.has(f.id), f.id);
    ids.add(f.id);
    assert.ok(f.diagnosticSteps.length && f.fixPattern.length && f.verify.length && f.rootCause, f.id);
  }
  // Unmatched errors fall back to a generic playbook for the runtime.
  const g = matchFamily({ code: 'E9999', kind: 'compile-error', message: 'x', runtime: 'rust', phase: 'compile', logLine: 1 }, 'rust');
  assert.equal(g.id, 'rust-compile-error');
});

test('CLI: distill --dry-run --export-hermes prints a preview; --export-omp writes', async () => {
  const { root, env } = project();
  const run = (args: string[], stdinText?: string) => runCliCaptured(args, { cwd: root, env, stdin: stdinText });
  const a = await run(['distill', '--dry-run', '--export-hermes'], fixture('go-nil-map-panic.log'));
  assert.equal(a.code, 0, a.err);
  assert.match(a.out, /Preview: Go assignment to entry in nil map/);
  assert.match(a.out, /^name: go-nil-map$/m);
  const b = await run(['distill', '--export-omp', join(__dirname, '..', '..', 'fixtures', 'logs', 'rust-e0502-borrow-conflict.log')]);
  assert.equal(b.code, 0, b.err);
  assert.ok(existsSync(join(root, '.omp', 'skills', 'rust-mutable-borrow-conflict', 'SKILL.md')));
  const c = await run(['distill', '--export-omp', '--export-hermes'], 'x');
  assert.equal(c.code, 2);
});

test('docs/economy.md lists every error family (the docs cannot drift from the table)', () => {
  const doc = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'economy.md'), 'utf8');
  const missing = ERROR_FAMILIES.map((f) => f.id).filter((id) => !doc.includes(`| \`${id}\` |`));
  assert.deepEqual(missing, []);
});

test('an exception thrown inside a test gets its own family, an assertion the test-assertion family (issue 15)', async () => {
  const { paths } = project();
  const captured = (f: string) => readFileSync(join(__dirname, '..', 'offload', 'captured', f), 'utf8');
  const typeError = await distillSkill(paths, { raw_trace: captured('node-test-spec-nested-typeerror.log'), dry_run: true });
  assert.equal(typeError.family, 'js-property-of-undefined');
  assert.equal(typeError.primary?.test, 'handles a line without a price');
  const assertion = await distillSkill(paths, { raw_trace: captured('pytest-tb-native-failure-and-fixture-error.log'), dry_run: true });
  assert.equal(assertion.family, 'test-assertion-failure');
  assert.match(assertion.content, /Failing test: `tests\/test_pricing\.py::test_rate_of_euro`/);
});
