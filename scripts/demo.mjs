// `npm start`: index the bundled demo vault with the built CLI and show what an agent would get back.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli.mjs');
const vault = join(root, 'demo');

function k0(...args) {
  console.log(`\n$ k0maru ${args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ')}`);
  const r = spawnSync(process.execPath, [cli, ...args, '--vault', vault], { stdio: 'inherit' });
  if (r.status !== 0 && r.status !== 1) process.exit(r.status ?? 1);
}

k0('scan');
k0('recall', 'SQLITE_BUSY OR payment lock granted twice during failover', '--mode', 'bm25');
k0('recall', 'why do outbound http calls need a timeout', '--limit', '3');
k0('recall', 'SELECT * FROM', '--limit', '2', '--mode', 'bm25');
k0('recall', 'connection pool exhausted under load', '--limit', '1', '--full');
