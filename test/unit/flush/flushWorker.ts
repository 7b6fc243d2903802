// A separate process that flushes notes into a project, for the concurrency test. It waits until the start
// file exists so every worker begins at the same moment, then prints one JSON line per flush.
import { existsSync } from 'node:fs';
import { flushNote } from '../../../src/core/flush';
import { pathsForProject } from '../../../src/core/vault/paths';

const [projectRoot, startFile, worker, count, title, category] = process.argv.slice(2);

async function main(): Promise<void> {
  const paths = pathsForProject(projectRoot);
  while (!existsSync(startFile)) await new Promise((r) => setTimeout(r, 2));
  for (let i = 0; i < Number(count); i++) {
    const noteTitle = title === '*' ? `Decision ${worker}-${i}` : title;
    const content = `written by worker ${worker}, flush ${i}\n` + 'filler line\n'.repeat(200);
    const r = await flushNote(paths, { title: noteTitle, content, category, date: '2026-11-30' });
    process.stdout.write(JSON.stringify({ worker, i, outcome: r.outcome, path: r.path }) + '\n');
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
