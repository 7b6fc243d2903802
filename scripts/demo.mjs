// `npm start`: run the main job on the bundled demo vault with the built CLI and show what an agent gets back:
// the index, the session loadout, recall, and the Living ADR Guard on a change that breaks two decisions.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli.mjs');
const vault = join(root, 'demo');

function k0(...args) {
  console.log(`\n$ k0maru ${args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ')}`);
  const r = spawnSync(process.execPath, [cli, ...args, '--vault', vault], { stdio: 'inherit', cwd: vault });
  if (r.status !== 0 && r.status !== 1) process.exit(r.status ?? 1);
}

k0('scan');
k0('loadout');
k0('recall', 'payment lock granted twice during failover', '--limit', '3');
k0('recall', 'SELECT * FROM', '--limit', '1', '--mode', 'bm25');
k0('guard', '--diff-file', 'changes/add-refund-endpoint.diff');
