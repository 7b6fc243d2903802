import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { flushNote } from '../../../src/core/flush';
import { sweepStaleTemps } from '../../../src/core/fsutil/atomicWrite';
import { tempProject } from './helpers';

test('temp files of dead writers are swept from the folders a superseding flush writes to; live, young and foreign ones stay', async () => {
  const p = tempProject('k0maru-default');
  const dir = join(p.notesRoot, '02_Architecture');
  const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString());
  const aged = (name: string, ageMs: number) => {
    writeFileSync(join(dir, name), 'half');
    const t = new Date(Date.now() - ageMs);
    utimesSync(join(dir, name), t, t);
  };
  aged(`.x.md.k0-${dead}-0123456789ab.tmp`, 10_000); // writer dead: swept
  aged(`.y.md.k0-${process.pid}-0123456789ab.tmp`, 10_000); // writer alive (this process): kept
  aged(`.z.md.k0-${dead}-0123456789ab.tmp`, 0); // dead but brand new (pid reuse guard): kept for now
  aged('.old.md.0123456789ab.tmp', 2 * 3_600_000); // an older version's name, hours old: swept
  aged('.someone-elses.tmp', 2 * 3_600_000); // not our pattern: never touched
  await flushNote(p, { title: 'Sweep', content: 'x', category: 'decision', supersedes: 'ADR-001', date: '2026-12-01' });
  const left = readdirSync(dir).filter((n) => n.endsWith('.tmp')).sort();
  assert.deepEqual(left, ['.someone-elses.tmp', `.y.md.k0-${process.pid}-0123456789ab.tmp`, `.z.md.k0-${dead}-0123456789ab.tmp`].sort());
  assert.deepEqual(sweepStaleTemps(dir, { now: Date.now() + 10_000 }), [`.z.md.k0-${dead}-0123456789ab.tmp`]);
});
