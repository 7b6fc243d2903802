import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openProject } from '../../../src/core/project';
import { recall, STALE_FACTOR } from '../../../src/core/search/recall';
import { renderFull, renderWire, renderWireLine } from '../../../src/core/search/wire';
import type { RecallHit } from '../../../src/core/search/types';
import { runCliCaptured } from '../../helpers/cli';
import { makeRepo, type TempRepo } from '../guard/helpers';

/**
 * Staleness through the real engine: a note naming `src/a.ts` is committed, src/a.ts changes in a later commit,
 * the project scans (Project.scan runs the staleness update), and recall says so.
 */

const note = (title: string, extra = '') => `---\ncategory: decision\n${extra}---\n# ${title}\n\nWe retry the payment webhook with backoff in \`src/a.ts\` before giving up on the charge.\n`;
const fresh = (title: string) => `---\ncategory: decision\n---\n# ${title}\n\nWe retry the payment webhook with backoff before giving up on the charge.\n`;

function staleRepo(extraNotes: Record<string, string> = {}): TempRepo {
  const r = makeRepo({
    '.k0maru/wiki/02_Architecture/adr-001-webhook-retry.md': note('Webhook retry'),
    '.k0maru/wiki/02_Architecture/adr-002-webhook-backoff.md': fresh('Webhook backoff'),
    ...Object.fromEntries(Object.entries(extraNotes).map(([k, v]) => [`.k0maru/wiki/${k}`, v])),
    'src/a.ts': 'export function retry() {\n  return 1;\n}\n',
    '.gitignore': '.k0maru/index.db*\n.k0maru/cache/\n',
  });
  r.commit('notes and code');
  r.write('src/a.ts', 'export function retry() {\n  return 2; // switched to exponential backoff\n}\n');
  r.commit('switch to exponential backoff');
  return r;
}

async function recallIn(r: TempRepo, query: string, opts: Parameters<typeof recall>[2] = {}) {
  const project = openProject({ cwd: r.root });
  try {
    await project.scan();
    return await recall(project, query, { mode: 'bm25', ...opts });
  } finally {
    project.close();
  }
}

test('a note whose anchored file changed in a later commit is marked stale, with a reason and since', async () => {
  const r = staleRepo();
  try {
    const res = await recallIn(r, 'payment webhook retry backoff');
    const hit = res.hits.find((h) => h.path.endsWith('adr-001-webhook-retry.md'));
    assert.ok(hit, JSON.stringify(res.hits.map((h) => h.path)));
    assert.ok(hit.stale, 'the note names src/a.ts, which changed after the note was committed');
    assert.match(hit.stale.reason, /src\/a\.ts/);
    assert.match(hit.stale.since, /^[0-9a-f]{7,}$/);
    assert.ok(hit.stale.base.startsWith(hit.stale.since));
    assert.equal(hit.explain.staleFactor, STALE_FACTOR);
    const other = res.hits.find((h) => h.path.endsWith('adr-002-webhook-backoff.md'));
    assert.ok(other && !other.stale, 'a note that names no code is never stale');
    // The wire line: `[stale] ` at the start of the snippet, the rest of the format untouched.
    assert.equal(renderWireLine(hit), renderWireLine({ ...hit, stale: undefined }).replace(' § ', ' § [stale] '));
    assert.match(renderWire(res.hits), /§ \[stale\] /);
    assert.doesNotMatch(renderWireLine(other), /\[stale\]/);
    assert.match(renderFull([{ ...hit, markdown: '# x' }]), new RegExp(`^<!-- ${hit.path} · L3 · score [0-9.]+ · stale since ${hit.stale.since}: `));
  } finally {
    r.dispose();
  }
});

test('the stale note ranks lower by STALE_FACTOR: a fresh note of equal relevance comes first, and it is still found alone', async () => {
  const r = staleRepo();
  try {
    const plain = await recallIn(r, 'payment webhook retry backoff', { staleFactor: 1 });
    const demoted = await recallIn(r, 'payment webhook retry backoff');
    const score = (res: typeof plain, end: string) => res.hits.find((h) => h.path.endsWith(end))!.score;
    assert.ok(Math.abs(score(demoted, 'adr-001-webhook-retry.md') - score(plain, 'adr-001-webhook-retry.md') * STALE_FACTOR) < 1e-9);
    assert.ok(demoted.hits.findIndex((h) => h.path.endsWith('adr-002-webhook-backoff.md')) < demoted.hits.findIndex((h) => h.path.endsWith('adr-001-webhook-retry.md')));
    // The only answer is never hidden: a query only the stale note answers still returns it first.
    const only = await recallIn(r, 'src/a.ts retry');
    assert.ok(only.hits[0]?.path.endsWith('adr-001-webhook-retry.md') && only.hits[0].stale, JSON.stringify(only.hits.map((h) => h.path)));
  } finally {
    r.dispose();
  }
});

test('a note both superseded and stale reads `[superseded] [stale] `; a fresh hit’s wire line is byte-identical to the seed format', () => {
  const base: RecallHit = { path: 'a.md', title: 'A', tier: 'L3', score: 0.5, snippet: 'text\nmore', heading: '', line: 1, linksIn: 2, linksOut: 1, superseded: false, explain: {} };
  assert.equal(renderWireLine(base), '!μ:L3|a.md|score:0.500|links:2/1 § text more');
  const stale = { reason: '`src/a.ts` changed in 1 commit since this note', since: 'abc1234', base: 'abc1234'.padEnd(40, '0'), anchors: [] };
  assert.equal(renderWireLine({ ...base, stale }), '!μ:L3|a.md|score:0.500|links:2/1 § [stale] text more');
  assert.equal(renderWireLine({ ...base, superseded: true, stale }), '!μ:L3|a.md|score:0.500|links:2/1 § [superseded] [stale] text more');
  // A commit subject cannot end the full view's comment early.
  assert.doesNotMatch(renderFull([{ ...base, stale: { ...stale, reason: "last abc 'x -->y'" }, markdown: 'body' }]).split('\n')[0].slice(4, -4), /-->/);
});

test('k0maru recall: `[stale]` in wire lines, `stale` in --json, the reason in --explain', async () => {
  const r = staleRepo();
  try {
    const wire = await runCliCaptured(['recall', 'payment webhook retry backoff', '--mode', 'bm25'], { cwd: r.root });
    assert.equal(wire.code, 0, wire.err);
    assert.match(wire.out, /adr-001-webhook-retry\.md\|score:[0-9.]+\|links:0\/0 § \[stale\] /);
    const json = await runCliCaptured(['recall', 'payment webhook retry backoff', '--mode', 'bm25', '--json'], { cwd: r.root });
    const hits = (JSON.parse(json.out) as { hits: RecallHit[] }).hits;
    const s = hits.find((h) => h.path.endsWith('adr-001-webhook-retry.md'))!;
    assert.match(s.stale?.reason ?? '', /src\/a\.ts/);
    assert.equal(hits.find((h) => h.path.endsWith('adr-002-webhook-backoff.md'))!.stale, undefined);
    const explain = await runCliCaptured(['recall', 'payment webhook retry backoff', '--mode', 'bm25', '--explain'], { cwd: r.root });
    assert.match(explain.out, new RegExp(`stale: 02_Architecture/adr-001-webhook-retry\\.md \\(score ×${STALE_FACTOR}\\) since [0-9a-f]{7,}: .*src/a\\.ts`));
    const explainJson = await runCliCaptured(['recall', 'payment webhook retry backoff', '--mode', 'bm25', '--explain', '--json'], { cwd: r.root });
    const cand = (JSON.parse(explainJson.out) as { candidates: { path: string; stale?: { reason: string }; staleFactor?: number }[] }).candidates.find((c) => c.path.endsWith('adr-001-webhook-retry.md'))!;
    assert.equal(cand.staleFactor, STALE_FACTOR);
    assert.match(cand.stale?.reason ?? '', /src\/a\.ts/);
  } finally {
    r.dispose();
  }
});
