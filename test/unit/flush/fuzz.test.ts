import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { flushNote } from '../../../src/core/flush';
import { K0Error } from '../../../src/core/errors';
import { tempProject } from './helpers';

/** Every file path under a folder, skipping the notes root itself. */
function filesOutsideNotes(projectRoot: string, notesRoot: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (p === notesRoot) continue;
      if (statSync(p).isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(projectRoot);
  return out.sort();
}

const nasty = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('../../x', '/etc/passwd', '..', '.', 'a/../../b', '[[x]]', 'x]]', '\0', 'C:\\Windows', 'ADR-001', 'CON', '#tag', '---'),
);

test('fuzzed flush arguments: only K0Errors, never a write outside the notes root, every result is a real note inside it', async () => {
  const p = tempProject('k0maru-default');
  const outsideBefore = filesOutsideNotes(p.projectRoot, p.notesRoot);
  const notesRoot = resolve(p.notesRoot);
  await fc.assert(
    fc.asyncProperty(
      fc.record(
        {
          title: fc.oneof(nasty, fc.anything()),
          content: fc.oneof(fc.string({ maxLength: 200 }), fc.anything()),
          summary: fc.option(nasty, { nil: undefined }),
          category: fc.option(fc.oneof(nasty, fc.constantFrom('decision', 'log', 'card', 'skill')), { nil: undefined }),
          tags: fc.option(fc.array(nasty, { maxLength: 4 }), { nil: undefined }),
          related_notes: fc.option(fc.array(nasty, { maxLength: 3 }), { nil: undefined }),
          supersedes: fc.option(fc.oneof(nasty, fc.array(nasty, { maxLength: 2 })), { nil: undefined }),
        },
        { requiredKeys: [] },
      ),
      async (input) => {
        try {
          const r = await flushNote(p, input as never, { now: new Date(2026, 10, 30) });
          assert.ok(resolve(r.absPath).startsWith(notesRoot + '/'), r.absPath);
          assert.ok(statSync(r.absPath).isFile());
          for (const s of r.superseded) assert.ok(!s.includes('..'));
        } catch (e) {
          assert.ok(e instanceof K0Error, `not a K0Error: ${(e as Error)?.stack ?? e}`);
        }
      },
    ),
    { numRuns: 300, seed: 20261130 },
  );
  assert.deepEqual(filesOutsideNotes(p.projectRoot, p.notesRoot), outsideBefore);
});
