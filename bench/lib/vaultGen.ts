import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Small seeded PRNG (mulberry32) so every run generates the same vault. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'cache invalidation webhook retry idempotency mutex redis postgres index query latency throughput ' +
  'timeout backoff jitter queue worker consumer producer partition shard replica failover leader election ' +
  'schema migration rollback deploy canary feature flag config secret rotation token session cookie ' +
  'tracing metrics alert dashboard incident postmortem runbook oncall pager budget error rate saturation ' +
  'borrow checker lifetime ownership allocator heap stack thread pool async await promise future channel ' +
  'compiler linker bundle module package dependency version semver lockfile build pipeline test fixture ' +
  'contract api gateway proxy tls certificate dns loadbalancer ingress container image registry cluster'
).split(' ');
const SYMBOLS = ['SQLITE_BUSY', 'E0502', 'E0382', 'TS2339', 'ECONNRESET', 'ERR_STREAM_DESTROYED', 'KeyError', 'OOMKilled', 'EADDRINUSE', 'max_connections', 'statement_timeout', 'MaxConns'];

/**
 * Word frequencies of real developer prose: read from the ADR corpus in ../shared when it is there (so sampled
 * text follows its Zipf distribution — a few very common words, a long tail of rare ones, as in real notes),
 * else a fixed list. A tiny uniform vocabulary would make every word match half of all chunks, which no real
 * vault does.
 */
function corpusVocabulary(): { words: string[]; cumulative: number[] } | undefined {
  const dir = join(__dirname, '..', '..', '..', 'shared', 'corpus', 'adr-vault');
  if (!existsSync(dir)) return undefined;
  const counts = new Map<string, number>();
  const visit = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) visit(p);
      else if (name.endsWith('.md')) for (const w of readFileSync(p, 'utf8').toLowerCase().match(/[a-z][a-z0-9_-]{1,24}/g) ?? []) counts.set(w, (counts.get(w) ?? 0) + 1);
    }
  };
  visit(dir);
  const words = [...counts.entries()].filter(([, c]) => c >= 2).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  let acc = 0;
  return { words: words.map(([w]) => w), cumulative: words.map(([, c]) => (acc += c)) };
}

export interface GeneratedVault {
  notesRoot: string;
  names: string[];
  queries: string[];
}

/** Writes `n` notes: 10% ADRs with rules, 30% logs, the rest cards; each links to 1–4 others. */
export function generateVault(notesRoot: string, n: number, seed = 42): GeneratedVault {
  const r = rng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const vocab = corpusVocabulary();
  const total = vocab ? vocab.cumulative[vocab.cumulative.length - 1] : 0;
  const prose = (): string => {
    if (!vocab) return pick(WORDS);
    const x = r() * total;
    let lo = 0;
    let hi = vocab.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (vocab.cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return vocab.words[lo];
  };
  const sentence = (len: number) => {
    const w = Array.from({ length: len }, () => (r() < 0.03 ? pick(SYMBOLS) : r() < 0.15 ? pick(WORDS) : prose()));
    return w[0][0].toUpperCase() + w.join(' ').slice(1) + '.';
  };
  const names: string[] = [];
  for (let i = 0; i < n; i++) {
    const kind = i % 10 === 0 ? 'adr' : i % 10 < 4 ? 'log' : 'card';
    names.push(kind === 'adr' ? `adr-${String(i).padStart(4, '0')}-${pick(WORDS)}-${pick(WORDS)}` : kind === 'log' ? `2026-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}-${pick(WORDS)}-${i}` : `${pick(WORDS)}-${pick(WORDS)}-${i}`);
  }
  mkdirSync(notesRoot, { recursive: true });
  for (const d of ['02_Architecture', '01_AI_Logs', '20_Cards']) mkdirSync(join(notesRoot, d), { recursive: true });
  for (let i = 0; i < n; i++) {
    const kind = i % 10 === 0 ? 'adr' : i % 10 < 4 ? 'log' : 'card';
    const folder = kind === 'adr' ? '02_Architecture' : kind === 'log' ? '01_AI_Logs' : '20_Cards';
    const links = Array.from({ length: 1 + Math.floor(r() * 4) }, () => `[[${pick(names)}]]`);
    const title = `${kind.toUpperCase()} ${i}: ${pick(WORDS)} ${pick(WORDS)}`;
    const paras = Array.from({ length: 2 + Math.floor(r() * 4) }, () => Array.from({ length: 3 + Math.floor(r() * 5) }, () => sentence(8 + Math.floor(r() * 12))).join(' '));
    const body = [
      '---',
      `title: "${title}"`,
      `category: ${kind === 'adr' ? 'decision' : kind === 'log' ? 'log' : 'concept'}`,
      `status: ${kind === 'adr' && r() < 0.2 ? 'superseded' : 'accepted'}`,
      `tags: [${pick(WORDS)}, ${pick(WORDS)}]`,
      `date: 2026-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
      '---',
      `# ${title}`,
      '',
      '## Context',
      paras[0],
      '',
      '## Decision',
      ...paras.slice(1),
      '',
      kind === 'adr' ? `## Invariants\n- deny: ${pick(WORDS)}_${pick(WORDS)}(\n  - remediation: use the ${pick(WORDS)} helper\n` : '',
      `Related: ${links.join(', ')}`,
      '',
    ].join('\n');
    writeFileSync(join(notesRoot, folder, `${names[i]}.md`), body);
  }
  // Queries: exact symbols, and 2–4 content words drawn like the text (so common words do show up in queries).
  const queries = Array.from({ length: 200 }, (_, i) =>
    i % 5 === 0 ? pick(SYMBOLS) : Array.from({ length: 2 + (i % 3) }, () => (r() < 0.5 ? pick(WORDS) : prose())).join(' '),
  );
  return { notesRoot, names, queries };
}
