// In-process cold index of a vault, run by bench/startCost.ts under each runtime (so each SQLite engine):
// `<node> --import tsx bench/lib/coldIndex.ts <vault root> <reps>` prints one JSON line. The first cold index in a
// process pays one-time costs (engine load, JIT); the rest (index file deleted before each) is the steady rate a
// long-lived host sees on a new vault — the "cold index ≥ 10,000 docs/s steady at 5,000 notes".
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { openProject } from '../../src/core/project';
import { engineName } from '../../src/core/index/sqliteEngine';
import { median, round } from './stats';

async function main() {
  const [root, repsArg] = process.argv.slice(2);
  const reps = Number(repsArg ?? 5);
  const index = join(root, '.k0maru', 'index.db');
  const ms: number[] = [];
  // CPU (user + sys) of this process too: on a shared, loaded machine wall time mostly measures the neighbours.
  const cpu: number[] = [];
  let docs = 0;
  let chunks = 0;
  for (let i = 0; i < reps; i++) {
    for (const f of [index, `${index}-journal`]) rmSync(f, { force: true });
    const p = openProject({ vault: root });
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const r = await p.scan();
    const c = process.cpuUsage(c0);
    ms.push(performance.now() - t0);
    cpu.push((c.user + c.system) / 1000);
    docs = r.added;
    chunks = Number(p.index.get('SELECT COUNT(*) AS n FROM chunks')!.n);
    p.close();
  }
  const steady = median(ms.slice(1));
  const steadyCpu = median(cpu.slice(1));
  const rate = (t: number) => Math.round(docs / (t / 1000));
  console.log(
    JSON.stringify({
      engine: engineName(),
      node: process.version,
      docs,
      chunks,
      wall: { firstMs: round(ms[0]), steadyMs: round(steady), firstDocsPerSec: rate(ms[0]), steadyDocsPerSec: rate(steady), runsMs: ms.map((x) => round(x)) },
      cpu: { firstMs: round(cpu[0]), steadyMs: round(steadyCpu), firstDocsPerSec: rate(cpu[0]), steadyDocsPerSec: rate(steadyCpu), runsMs: cpu.map((x) => round(x)) },
    }),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
