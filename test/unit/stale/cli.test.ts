import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliCaptured } from '../../helpers/cli';
import { yamlValue } from '../../../src/core/flush/frontmatterEdit';
import { staleRepo } from './repo';

function changed() {
  const r = staleRepo();
  r.write('src/db/pool.ts', 'export function acquireLock() {\n  return 1;\n}\n');
  r.note('decisions/pool.md', '---\ntitle: Pool decision\ntags: [db]\n---\n# Pool\n\nWe lock in `src/db/pool.ts`.\n');
  r.note('fresh.md', '# Fresh\n\nNothing anchored.\n');
  r.commit('initial');
  r.write('src/db/pool.ts', 'export function acquireLock() {\n  return 2;\n}\n');
  const c = r.commit('switch to pgx');
  return { r, c };
}

test('k0maru stale lists the stale note with its reason; --json carries reason/since/base; --check exits 1', async () => {
  const { r, c } = changed();
  try {
    const text = await runCliCaptured(['stale'], { cwd: r.root });
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, /^decisions\/pool\.md — Pool decision \(since [0-9a-f]{7}\)\n {2}`src\/db\/pool\.ts` changed in 1 commit since this note \(last [0-9a-f]{7} \d{4}-\d\d-\d\d 'switch to pgx'\)\n1 of 1 anchored notes stale at /);
    const js = await runCliCaptured(['stale', '--json'], { cwd: r.root });
    const body = JSON.parse(js.out);
    assert.equal(body.status.enabled, true);
    assert.equal(body.status.head, c);
    assert.equal(body.stale.length, 1);
    assert.equal(body.stale[0].path, 'decisions/pool.md');
    assert.match(body.stale[0].reason, /changed in 1 commit/);
    assert.equal(body.stale[0].since, body.stale[0].base.slice(0, 7));
    const check = await runCliCaptured(['stale', '--check'], { cwd: r.root });
    assert.equal(check.code, 1);
  } finally {
    r.cleanup();
  }
});

test('k0maru verify NOTE writes verified_at (full HEAD) atomically, keeps the rest, and the note is no longer stale', async () => {
  const { r, c } = changed();
  try {
    const file = join(r.root, '.k0maru', 'wiki', 'decisions', 'pool.md');
    const v = await runCliCaptured(['verify', 'Pool decision', '--json'], { cwd: r.root });
    assert.equal(v.code, 0, v.err);
    assert.deepEqual(JSON.parse(v.out), { verified: [{ path: 'decisions/pool.md', verifiedAt: c }] });
    assert.equal(readFileSync(file, 'utf8'), `---\ntitle: Pool decision\ntags: [db]\nverified_at: ${yamlValue(c)}\n---\n# Pool\n\nWe lock in \`src/db/pool.ts\`.\n`);
    const after = await runCliCaptured(['stale', '--json'], { cwd: r.root });
    assert.deepEqual(JSON.parse(after.out).stale, []);
  } finally {
    r.cleanup();
  }
});

test('usage errors: verify without a note, an unknown note, a bad commit — coded, exit 2, nothing written', async () => {
  const { r } = changed();
  try {
    const file = join(r.root, '.k0maru', 'wiki', 'decisions', 'pool.md');
    const before = readFileSync(file, 'utf8');
    const none = await runCliCaptured(['verify'], { cwd: r.root });
    assert.equal(none.code, 2);
    const missing = await runCliCaptured(['verify', 'decisions/pool.md', 'no-such-note'], { cwd: r.root });
    assert.notEqual(missing.code, 0);
    assert.match(missing.err, /NOTE_NOT_FOUND|no note matches/);
    const bad = await runCliCaptured(['verify', 'decisions/pool.md', '--commit', 'deadbeef'], { cwd: r.root });
    assert.equal(bad.code, 2);
    assert.equal(readFileSync(file, 'utf8'), before, 'nothing written');
  } finally {
    r.cleanup();
  }
});

test('outside a git repository, k0maru stale says once that staleness is off and why', async () => {
  const r = staleRepo({ git: false });
  try {
    r.note('a.md', '# A\n\n`src/a.ts`\n');
    const out = await runCliCaptured(['stale'], { cwd: r.root });
    assert.equal(out.code, 0);
    assert.equal(out.err.match(/staleness is off/g)?.length, 1, out.err);
    assert.match(out.err, /not a git repository/);
    assert.equal(out.out, '');
  } finally {
    r.cleanup();
  }
});
