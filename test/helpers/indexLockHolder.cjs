// Another process that holds the index lock, the way a second k0maru host would: it opens the same index file with
// node-sqlite3-wasm and takes the write lock (BEGIN IMMEDIATE) for HOLD ms, releases it for GAP ms, and again.
// Usage: node indexLockHolder.cjs <index.db> [holdMs=300] [gapMs=15]
// Prints "holding" once it first has the lock, then "cycles <n>" when told to stop (SIGTERM or stdin closed).
const { Database } = require('node-sqlite3-wasm');

const [path, holdArg, gapArg] = process.argv.slice(2);
const holdMs = Number(holdArg ?? 300);
const gapMs = Number(gapArg ?? 15);
const db = new Database(path);
let wake = () => {};
/** A sleep that `finish()` cuts short, so a long hold ends as soon as the test says stop. */
const sleep = (ms) =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    wake = () => (clearTimeout(t), resolve());
  });
let stop = false;
let cycles = 0;

/** False when told to stop while waiting: a holder that never gets the lock back must still exit. */
async function acquire() {
  for (;;) {
    if (stop) return false;
    try {
      db.exec('BEGIN IMMEDIATE');
      return true;
    } catch (err) {
      if (!/locked|busy/i.test(err.message)) throw err;
      await sleep(1);
    }
  }
}

async function main() {
  while (!stop) {
    if (!(await acquire())) break;
    if (cycles === 0) process.stdout.write('holding\n');
    await sleep(holdMs);
    db.exec('COMMIT');
    cycles++;
    if (!stop) await sleep(gapMs);
  }
  db.close();
  process.stdout.write(`cycles ${cycles}\n`);
}

const finish = () => {
  stop = true;
  wake();
};
process.on('SIGTERM', finish);
process.stdin.on('end', finish);
process.stdin.on('close', finish);
process.stdin.resume();
main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
