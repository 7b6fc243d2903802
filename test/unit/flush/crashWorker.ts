// A process that runs the crash kit's superseding flush in-process with a throwing commit hook, so its rollback
// path runs; K0MARU_FAULT=flush:rollback then kills it in the middle of that rollback. Step `none` throws nowhere
// (K0MARU_FAULT alone decides where it dies).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { flushNote } from '../../../src/core/flush';
import { pathsForProject } from '../../../src/core/vault/paths';

const [root, step, index] = process.argv.slice(2);

flushNote(
  pathsForProject(root),
  { title: 'Use Postgres', category: 'decision', supersedes: ['ADR-001', 'ADR-002'], date: '2026-12-01', content: readFileSync(join(root, 'content.md'), 'utf8') },
  {
    fault: (s, i) => {
      if (s === step && i === Number(index)) throw new Error(`injected at ${s} ${i}`);
    },
  },
).then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(3);
  },
);
