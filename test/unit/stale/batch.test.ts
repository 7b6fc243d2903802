import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { listStale } from '../../../src/core/stale';
import { BatchGit } from '../../../src/core/stale/batchGit';
import { staleRepo } from './repo';

/**
 * A first scan over many bases asks git once for all of them (batchGit.ts). Its verdicts must be the ones the
 * per-base computation gives: same repository, computed both ways, compared row by row, with renames (pure and
 * edited), deletions, line and symbol anchors, and working-tree edits on top of committed ones.
 */

const fn = (name: string, body: string) => `export function ${name}(x: number): number {\n  return ${body};\n}\n`;

function history() {
  const r = staleRepo();
  r.write('src/a.ts', fn('computeAlpha', 'x + 1') + '\n' + fn('computeBeta', 'x + 2'));
  r.write('src/b.ts', 'export const one = 1;\nexport const two = 2;\nexport const three = 3;\n');
  r.write('src/gone.ts', fn('doomedHelper', 'x'));
  r.write('src/moved.ts', fn('travelFar', 'x * 3'));
  r.write('src/moved2.ts', fn('wanderAround', 'x * 4') + '\n' + 'export const pad1 = 1;\nexport const pad2 = 2;\nexport const pad3 = 3;\n');
  r.write('src/dirty.ts', fn('editedNow', 'x - 1'));
  r.note('n1.md', '# N1\n\nSee `computeAlpha()` and `src/b.ts:2`.\n');
  r.note('n2.md', '# N2\n\n`src/gone.ts` and `doomedHelper()` matter.\n');
  r.commit('base one');
  r.note('n3.md', '# N3\n\n`travelFar()` lives in `src/moved.ts`; `wanderAround()` in `src/moved2.ts`.\n');
  r.note('n4.md', '# N4\n\n`editedNow()` and `computeBeta()`, lines `src/b.ts:3`.\n');
  r.commit('base two');
  r.write('src/a.ts', fn('computeAlpha', 'x + 10') + '\n' + fn('computeBeta', 'x + 2'));
  r.write('src/b.ts', 'export const zero = 0;\nexport const one = 1;\nexport const two = 2;\nexport const three = 3;\n');
  r.commit('touch computeAlpha, shift b');
  r.note('n5.md', '# N5\n\n`computeBeta()` again and `src/b.ts:4`.\n');
  r.commit('base three');
  r.git('mv', 'src/moved.ts', 'src/renamed.ts');
  r.git('mv', 'src/moved2.ts', 'src/renamed2.ts');
  r.write('src/renamed2.ts', fn('wanderAround', 'x * 40') + '\n' + 'export const pad1 = 1;\nexport const pad2 = 2;\nexport const pad3 = 3;\n');
  r.remove('src/gone.ts');
  r.write('src/b.ts', 'export const zero = 0;\nexport const one = 1;\nexport const two = 2;\nexport const three = 33;\n');
  r.commit('rename, delete, change three');
  // Uncommitted: a body edit and a deletion in the working tree.
  r.write('src/dirty.ts', fn('editedNow', 'x - 2'));
  r.write('src/a.ts', fn('computeAlpha', 'x + 10') + '\n' + fn('computeBeta', 'x + 20'));
  return r;
}

const rows = (p: ReturnType<ReturnType<typeof staleRepo>['open']>) =>
  p.index.all('SELECT doc_id, state, info, anchors FROM stale_notes ORDER BY doc_id').map((r) => JSON.stringify(r));

test('first scan over several bases: the batched answers give the per-base verdicts exactly', async () => {
  const r = history();
  const prepare = BatchGit.prepare;
  let used = 0;
  try {
    (BatchGit as { prepare: typeof prepare }).prepare = async (...args) => {
      const b = await prepare(...args);
      if (b) used++;
      return b;
    };
    const p = r.open();
    await p.scan();
    assert.equal(used, 1, 'the batch answered this first scan');
    const batched = rows(p);
    // The same repository computed base by base, as before the batch.
    (BatchGit as { prepare: typeof prepare }).prepare = async () => undefined;
    p.index.write(() => {
      p.index.run('DELETE FROM stale_notes');
      p.index.run('DELETE FROM stale_meta');
    });
    await p.scan();
    assert.deepEqual(rows(p), batched);
    const stale = listStale(p.index).map((n) => n.path).sort();
    assert.deepEqual(stale, ['n1.md', 'n2.md', 'n3.md', 'n4.md', 'n5.md']);
    const reasons = new Map(listStale(p.index).map((n) => [n.path, n.info.anchors.map((a) => `${a.anchor}:${a.change}:${a.commits}`).sort().join(' ')]));
    assert.equal(reasons.get('n1.md'), 'computeAlpha():changed:1'); // src/b.ts:2 moved to line 3 untouched
    assert.equal(reasons.get('n2.md'), 'doomedHelper():removed:1 src/gone.ts:deleted:1');
    assert.equal(reasons.get('n3.md'), 'src/moved2.ts:changed:2'); // the pure rename of src/moved.ts is followed silently
    assert.equal(reasons.get('n4.md'), 'computeBeta():changed:1 editedNow():changed:0 src/b.ts:3:changed:2');
    assert.equal(reasons.get('n5.md'), 'computeBeta():changed:0 src/b.ts:4:changed:1');

  } finally {
    (BatchGit as { prepare: typeof prepare }).prepare = prepare;
    r.cleanup();
  }
});

test("a repository's clean filter never runs for the staleness update's working-tree calls (first scan and after an edit)", async () => {
  const r = history();
  const marker = join(r.root, 'filter-ran');
  try {
    r.write('.gitattributes', '*.ts filter=evil\n');
    r.git('config', 'filter.evil.clean', `sh -c 'touch "${marker}"; cat'`);
    r.git('config', 'filter.evil.required', 'true');
    const p = r.open();
    await p.scan();
    assert.equal(existsSync(marker), false, 'the clean filter ran during the first scan');
    assert.ok(listStale(p.index).some((n) => n.path === 'n4.md'));
    r.write('src/b.ts', 'export const zero = 0;\nexport const one = 1;\nexport const two = 22;\nexport const three = 33;\n');
    await p.scan();
    assert.equal(existsSync(marker), false, 'the clean filter ran during the update');
    assert.ok(listStale(p.index).some((n) => n.path === 'n1.md' && n.info.anchors.some((a) => a.anchor === 'src/b.ts:2')));
  } finally {
    r.cleanup();
  }
});
