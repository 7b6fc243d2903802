// `npm start`: run the main job on the bundled demo vault with the built CLI and show what an agent gets back:
// the index, the session loadout, recall, and the Living ADR Guard on a change that breaks two decisions.
// Then offload a real failing test log (demo/logs/) and open the console on the demo vault until Ctrl+C.
// Arguments after `npm start --` go to `k0maru ui` (e.g. `--port 7316`); `--no-open` keeps the browser closed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli.mjs');
const vault = join(root, 'demo');

const show = (args) => `\n$ k0maru ${args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ')}`;

function k0(...args) {
  console.log(show(args));
  const r = spawnSync(process.execPath, [cli, ...args, '--vault', vault], { stdio: 'inherit', cwd: vault });
  if (r.status !== 0 && r.status !== 1) process.exit(r.status ?? 1);
}

k0('scan');
k0('loadout');
k0('recall', 'payment lock granted twice during failover', '--limit', '3');
k0('recall', 'SELECT * FROM', '--limit', '1', '--mode', 'bm25');
k0('guard', '--diff-file', 'changes/add-refund-endpoint.diff');

// Offload the demo's failing `go test` log once. Offload itself dedupes the raw log by content, but every run
// would still add a ledger line (and so count the same savings again on the scoreboard): look for the node first.
const TASK = 'go-test-failover';
const refs = join(vault, '.k0maru', 'refs');
const offloaded = existsSync(refs) && readdirSync(refs).find((f) => new RegExp(`^${TASK}_node_[0-9a-f]{8}\\.log$`).test(f));
if (offloaded) console.log(`\n(demo/logs/${TASK}.log is already offloaded as ${offloaded.slice(TASK.length + 1, -4)})`);
else k0('offload', '--task', TASK, `logs/${TASK}.log`);

// The console, in the foreground until Ctrl+C. The terminal sends SIGINT to us and to `k0maru ui` alike: we
// let the server close itself and leave with its exit code.
const extra = process.argv.slice(2);
const uiArgs = ['ui', '--vault', vault, ...(extra.includes('--no-open') ? [] : ['--open']), ...extra.filter((a) => a !== '--no-open')];
console.log(show(uiArgs.map((a) => (a === vault ? 'demo' : a))));
const ui = spawn(process.execPath, [cli, ...uiArgs], { stdio: 'inherit', cwd: vault });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => ui.kill(signal));
ui.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' || signal === 'SIGTERM' ? 0 : 1)));
