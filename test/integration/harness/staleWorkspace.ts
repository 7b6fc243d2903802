import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The workspace of the stale-notes suite, built as a real git repository before the editor opens it: notes
 * anchored to code in a first commit, then a commit that changes, deletes and leaves code alone. Plus enough
 * generated notes that the background embedding fill takes several steps (the status bar progress test).
 */

export const POOL_NOTE = '02_Architecture/ADR-010-connection-pool.md';
export const QUEUE_NOTE = '02_Architecture/ADR-011-legacy-queue.md';
export const API_NOTE = '01_AI_Logs/2026-11-02-api-split.md';
export const FRESH_NOTE = '02_Architecture/ADR-012-retry-policy.md';
export const CLIENT_NOTE = '02_Architecture/ADR-013-http-client.md';
/** An ADR whose rule is scoped to src/legacy/**, which the second commit empties (no anchors: never stale). */
export const SCOPE_NOTE = '02_Architecture/ADR-014-legacy-jobs.md';
export const SCOPE_RULE = '- deny: /\\bredisQueue\\.push\\(/ | in: src/legacy/** | id: NO-REDIS-PUSH | because: Enqueue through the jobs service.';
export const GENERATED_NOTES = 160;

const POOL_BEFORE = 'export function openPool(url: string) {\n  // four connections are enough for the worker\n  return { url, size: 4 };\n}\n';
const POOL_AFTER = 'import { Pool } from "pgx";\n\nexport function openPool(url: string) {\n  return new Pool({ url, size: 16 });\n}\n';

// Long enough that git still sees a rename after one line changed (similarity above its 50 % default).
const CLIENT_LINES = Array.from({ length: 12 }, (_, i) => `export const STEP_${i} = ${i};`).join('\n');
const CLIENT_BEFORE = `${CLIENT_LINES}\nexport const TIMEOUT_MS = 1000;\n`;
const CLIENT_AFTER = `${CLIENT_LINES}\nexport const TIMEOUT_MS = 2500;\n`;

const note = (title: string, category: string, body: string) =>
  `---\ntitle: ${title}\ncategory: ${category}\nstatus: accepted\ndate: 2026-11-01\n---\n# ${title}\n\n${body}\n`;

// A vocabulary wide enough that the generated notes are not one passage repeated (their vectors are what fills).
const WORDS = ('ledger invoice refund webhook retry backoff queue worker shard replica cache eviction token session cookie ' +
  'schema migration index vacuum checkpoint snapshot replay cursor batch stream window watermark latency budget quota ' +
  'tenant region failover leader follower quorum lease heartbeat timeout deadline circuit breaker bulkhead sidecar ' +
  'gateway router proxy certificate rotation secret vault audit trail metric histogram trace span sampler exporter ' +
  'parser lexer grammar visitor compiler bundle chunk manifest checksum archive restore backup cold warm hot tier').split(' ');

function paragraph(seed: number, words: number): string {
  let x = seed * 2654435761 % 4294967296;
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(WORDS[x % WORDS.length]);
  }
  return out.join(' ') + '.';
}

function write(root: string, rel: string, text: string): void {
  const abs = join(root, rel);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, text);
}

function git(root: string, args: string[], date: string): string {
  return execFileSync('git', ['-c', 'user.name=K0 Test', '-c', 'user.email=k0@example.invalid', '-c', 'commit.gpgsign=false', '-c', 'core.hooksPath=/dev/null', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
  });
}

/** Builds the repository in `root` (an empty folder with a README); returns the two commits, oldest first. */
export function buildStaleWorkspace(root: string): { base: string; head: string } {
  write(root, '.gitignore', '.k0maru/index.db*\n.k0maru/*.lock/\n.k0maru/cache/\n');
  write(root, 'src/db/pool.ts', POOL_BEFORE);
  write(root, 'src/legacy/queue.ts', 'export const QUEUE = "redis";\n');
  write(root, 'src/api/orders.ts', 'export const ORDERS = "/v1/orders";\n');
  write(root, 'src/api/payments.ts', 'export const PAYMENTS = "/v1/payments";\n');
  write(root, 'src/util/retry.ts', 'export const RETRIES = 3;\n');
  write(root, 'src/net/client.ts', CLIENT_BEFORE);
  const wiki = '.k0maru/wiki';
  write(root, `${wiki}/${POOL_NOTE}`, note('ADR-010 Connection pool', 'decision', 'We open one pool per process in `src/db/pool.ts`, with four connections.'));
  write(root, `${wiki}/${QUEUE_NOTE}`, note('ADR-011 Legacy queue', 'decision', 'Jobs still go through the Redis queue in `src/legacy/queue.ts`.'));
  write(root, `${wiki}/${API_NOTE}`, note('Splitting the API', 'log', 'Orders live in `src/api/orders.ts` and payments in `src/api/payments.ts`.'));
  write(root, `${wiki}/${CLIENT_NOTE}`, note('ADR-013 HTTP client', 'decision', 'Requests time out after one second (`src/net/client.ts`).'));
  write(root, `${wiki}/${FRESH_NOTE}`, note('ADR-012 Retry policy', 'decision', 'Three retries, defined in `src/util/retry.ts`.'));
  write(root, `${wiki}/${SCOPE_NOTE}`, note('ADR-014 Legacy jobs', 'decision', `No new code pushes to the Redis queue.\n\n## Invariants\n\n${SCOPE_RULE}`));
  for (let i = 0; i < GENERATED_NOTES; i++) {
    const n = String(i).padStart(3, '0');
    write(root, `${wiki}/03_Knowledge/topic-${n}.md`, note(`Topic ${n}`, 'concept', `${paragraph(i * 3 + 1, 60)}\n\n## Details\n\n${paragraph(i * 3 + 2, 60)}\n\n## Notes\n\n${paragraph(i * 3 + 3, 60)}`));
  }
  git(root, ['init', '-q', '-b', 'main'], '2026-11-01T10:00:00Z');
  git(root, ['add', '-A'], '2026-11-01T10:00:00Z');
  git(root, ['commit', '-q', '-m', 'notes and code'], '2026-11-01T10:00:00Z');
  const base = git(root, ['rev-parse', 'HEAD'], '2026-11-01T10:00:00Z').trim();
  write(root, 'src/db/pool.ts', POOL_AFTER);
  rmSync(join(root, 'src/legacy/queue.ts'));
  write(root, 'src/api/orders.ts', 'export const ORDERS = "/v2/orders";\n');
  write(root, 'src/api/payments.ts', 'export const PAYMENTS = "/v2/payments";\n');
  // Renamed and changed in the same commit: the anchor follows the rename (-M), the diff shows the old name.
  rmSync(join(root, 'src/net/client.ts'));
  write(root, 'src/net/httpClient.ts', CLIENT_AFTER);
  git(root, ['add', '-A'], '2026-11-20T10:00:00Z');
  git(root, ['commit', '-q', '-m', 'switch to pgx'], '2026-11-20T10:00:00Z');
  const head = git(root, ['rev-parse', 'HEAD'], '2026-11-20T10:00:00Z').trim();
  return { base, head };
}

export const POOL_AT_BASE = POOL_BEFORE;
export const CLIENT_AT_BASE = CLIENT_BEFORE;
