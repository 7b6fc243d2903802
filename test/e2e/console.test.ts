/**
 * The console end to end, in a real browser: `k0maru ui` (the built CLI) serves a temp vault on 127.0.0.1 and
 * Debian's chromium, driven by playwright-core, uses the page the way a person would. The figures the page shows
 * are compared with independent sources: `k0maru recall --json` for the search channels, the index (read with
 * SQL, not through the console code) for the scoreboard, the raw log file for the log viewer. Screenshots of each tab go to test-results/ (git-ignored).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { DIST_CLI, REPO } from '../helpers/build';
import { tempVault, type TempVault } from '../helpers/tempVault';
import { CHROMIUM_PATH } from '../integration/harness/browser';
import { CHROMIUM_FLAGS, indexTotals, startUiOn } from './consoleHarness';
import type { RunningUi } from '../helpers/ui';
import { PROTOCOL_VERSION } from '../../src/shared/protocolVersion';

const SHOTS = join(REPO, 'test-results');
const QUERY = 'SQLITE_BUSY WAL';

let vault: TempVault;
let server: RunningUi;
let browser: Browser;
let page: Page;
let nodeId: string;
const requests: string[] = [];
const consoleProblems: string[] = [];

function cli(args: string[]): string {
  const r = spawnSync(process.execPath, [DIST_CLI, ...args, '--vault', vault.root], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, `k0maru ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

function offload(log: string, task: string): { nodeId: string; rawFile: string } {
  return JSON.parse(cli(['offload', '--threshold', '0', '--task', task, '--json', join(REPO, 'test/fixtures/logs', log)]));
}

before(async () => {
  for (const f of [DIST_CLI, join(REPO, 'dist/webview/webview.js'), join(REPO, 'dist/webview/webview.css')]) {
    if (!existsSync(f)) throw new Error(`${f} is missing: run \`node esbuild.mjs\` first`);
  }
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`chromium not found at ${CHROMIUM_PATH} (apt-get install chromium)`);
  // ADR-002 and ADR-003 link to each other and both match the query: rrf+boost lifts both. ADR-001 is superseded.
  vault = tempVault({
    '02_Architecture/adr-001-sqlite-retry.md': '---\ntitle: ADR-001 Retry on SQLITE_BUSY\ncategory: decision\nstatus: superseded\n---\n# ADR-001 Retry on SQLITE_BUSY\nRetry writes on SQLITE_BUSY with exponential back-off. Replaced by [[adr-002-wal-mode]].\n',
    '02_Architecture/adr-002-wal-mode.md': '---\ntitle: ADR-002 WAL journal mode\ncategory: decision\nstatus: accepted\n---\n# ADR-002 WAL journal mode\nUse the WAL journal so readers never block writers; SQLITE_BUSY only happens on writer contention.\n\nSee [[adr-003-single-writer]] for how writers are serialised.\n\n- readers: **never** wait\n- writers: one at a time\n',
    '02_Architecture/adr-003-single-writer.md': '---\ntitle: ADR-003 One writer process\ncategory: decision\nstatus: accepted\n---\n# ADR-003 One writer process\nAll index writes go through one writer process, so SQLITE_BUSY never reaches the user in WAL mode.\n\nBuilds on [the WAL decision](./adr-002-wal-mode.md).\n',
    '01_AI_Logs/2026-01-02-flaky-test.md': '# Flaky checkout test\nThe checkout test timed out on CI because the payment mock answered late.\n',
    // Markup in a note must render as text, never run or load anything.
    '01_AI_Logs/hostile.md': '# Hostile zebracorn note\n<script>window.__k0pwned = 1</script>\n<img src="x" onerror="window.__k0pwned = 2">\n[click](javascript:window.__k0pwned=3) ![remote](https://example.com/x.png) [site](https://example.com/)\n',
  });
  nodeId = offload('long-pytest-one-failure.log', 'pytest-run').nodeId;
  offload('rust-e0382-use-after-move.log', 'cargo-build');
  // A context GC run over a real-shaped 200-turn session: the scoreboard's second source.
  cli(['gc', '--json', join(REPO, 'test/fixtures/trajectories/session-200.json')]);
  server = await startUiOn(vault.root);
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_FLAGS });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) consoleProblems.push(`${m.type()}: ${m.text()} @ ${m.location().url}`);
  });
  page.on('pageerror', (e) => consoleProblems.push(`pageerror: ${e.message}`));
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready=true]', { timeout: 15_000 });
  mkdirSync(SHOTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  await server?.stop();
  vault?.cleanup();
});

test('a hybrid search with rrf+boost shows per-channel figures equal to `k0maru recall --json`, a boost badge and the superseded mark', async () => {
  await page.click('[data-testid=tab-search]');
  await page.fill('[data-testid=search-input]', QUERY);
  await page.selectOption('[data-testid=search-mode]', 'hybrid');
  await page.selectOption('[data-testid=search-fusion]', 'rrf+boost');
  await page.press('[data-testid=search-input]', 'Enter');
  await page.waitForSelector('[data-testid=hit]', { timeout: 20_000 });
  // A search answers within its embedding budget: while the model still loads it answers with BM25 and says so,
  // and until the background fill covered the vault its vector column is partial (the chip's coverage says so).
  // Search again until the model answers over every passage (a condition, not a set time).
  const coveredShown = () => page.waitForFunction(() => {
    const chip = document.querySelector('[data-testid=search-effective-mode]');
    return chip?.getAttribute('data-value') === 'hybrid' && !!chip.getAttribute('data-passages') && chip.getAttribute('data-embedded') === chip.getAttribute('data-passages');
  }, undefined, { timeout: 5_000 }).then(() => true, () => false);
  for (const end = Date.now() + 90_000; !(await coveredShown()) && Date.now() < end; ) await page.press('[data-testid=search-input]', 'Enter');
  assert.equal(await page.getAttribute('[data-testid=search-effective-mode]', 'data-value'), 'hybrid', 'the bundled model answers offline');
  assert.equal(await page.textContent('[data-testid=search-effective-mode]'), 'hybrid', 'over the whole vault: no partial label');

  // (No named helper inside the callback: tsx's __name wrapper does not exist in the page.)
  const shown = await page.$$eval('[data-testid=hit]', (els) => els.map((el) => ({
    path: el.getAttribute('data-path'),
    bm25: el.querySelector('[data-testid=hit-bm25]')?.getAttribute('data-value') ?? null,
    bm25Rank: el.querySelector('[data-testid=hit-bm25]')?.getAttribute('data-rank') ?? null,
    cosine: el.querySelector('[data-testid=hit-vector]')?.getAttribute('data-value') ?? null,
    vectorRank: el.querySelector('[data-testid=hit-vector]')?.getAttribute('data-rank') ?? null,
    fused: el.querySelector('[data-testid=hit-fused]')?.getAttribute('data-value') ?? null,
    boost: el.querySelector('[data-testid=graph-boost]')?.textContent ?? null,
    superseded: !!el.querySelector('[data-testid=superseded]'),
  })));
  // The CLI is one-shot: each run loads the model within its 3 s budget or answers with BM25; run it until it loaded.
  type CliRecall = { effectiveMode: string; effectiveModeLabel: string; hits: { path: string; superseded: boolean; explain: { bm25?: { rank: number; score: number }; vector?: { rank: number; cosine: number }; fused?: number; boost?: number } }[] };
  const cliRecall = () => JSON.parse(cli(['recall', QUERY, '--mode', 'hybrid', '--fusion', 'rrf+boost', '--json'])) as CliRecall;
  let cliOut = cliRecall();
  for (const end = Date.now() + 90_000; cliOut.effectiveModeLabel !== 'hybrid' && Date.now() < end; ) cliOut = cliRecall();
  assert.equal(cliOut.effectiveModeLabel, 'hybrid', 'the CLI loaded the model within its budget at least once, over every passage');
  const cliHits = cliOut.hits;
  assert.deepEqual(shown.map((s) => s.path), cliHits.map((h) => h.path), 'same hits in the same order as the CLI');
  const close = (a: string | null, b: number | undefined, what: string) => {
    assert.ok(a !== null && b !== undefined, `${what}: page ${a}, cli ${b}`);
    assert.ok(Math.abs(Number(a) - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: page ${a} ≠ cli ${b}`);
  };
  for (const [i, h] of cliHits.entries()) {
    const s = shown[i]!;
    if (h.explain.bm25) close(s.bm25, h.explain.bm25.score, `${h.path} bm25`), close(s.bm25Rank, h.explain.bm25.rank, `${h.path} bm25 rank`);
    else assert.equal(s.bm25, null, `${h.path} has no BM25 figure`);
    if (h.explain.vector) close(s.cosine, h.explain.vector.cosine, `${h.path} cosine`), close(s.vectorRank, h.explain.vector.rank, `${h.path} vector rank`);
    else assert.equal(s.cosine, null);
    if (h.explain.fused !== undefined) close(s.fused, h.explain.fused, `${h.path} fused`);
    assert.equal(s.boost, h.explain.boost ? `+${h.explain.boost.toFixed(2)} Graph Boost` : null, `${h.path} boost badge`);
    assert.equal(s.superseded, h.superseded);
  }
  assert.ok(shown.some((s) => s.bm25 !== null) && shown.some((s) => s.cosine !== null), 'both channels have figures');
  const boosted = shown.filter((s) => s.boost === '+0.05 Graph Boost').map((s) => s.path).sort();
  assert.deepEqual(boosted, ['02_Architecture/adr-002-wal-mode.md', '02_Architecture/adr-003-single-writer.md']);
  assert.ok(shown.find((s) => s.path === '02_Architecture/adr-001-sqlite-retry.md')?.superseded, 'the superseded ADR is marked');
  const badgeColor = await page.$eval('[data-testid=graph-boost]', (el) => getComputedStyle(el).backgroundColor);
  assert.equal(badgeColor, 'rgb(16, 185, 129)', 'the badge is emerald');

  // bm25 mode: no vector figures at all.
  await page.selectOption('[data-testid=search-mode]', 'bm25');
  await page.press('[data-testid=search-input]', 'Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid=search-effective-mode]')?.getAttribute('data-value') === 'bm25');
  assert.deepEqual(await page.$$eval('[data-testid=hit-vector]', (els) => els.map((e) => e.textContent)), Array(shown.filter((s) => s.bm25 !== null).length).fill('Vector —'));
});

test('clicking a title shows the note rendered from Markdown; its [[links]] open the notes they resolve to', async () => {
  await page.selectOption('[data-testid=search-mode]', 'hybrid');
  await page.press('[data-testid=search-input]', 'Enter');
  await page.click('[data-testid=hit][data-path="02_Architecture/adr-002-wal-mode.md"] [data-testid=hit-title]');
  await page.waitForSelector('[data-testid=note-view] article li strong');
  const note = await page.$eval('[data-testid=note-view]', (el) => ({
    h1: el.querySelector('article h1')?.textContent, strong: el.querySelector('article li strong')?.textContent,
    title: el.querySelector('[data-testid=note-title]')?.textContent, frontmatter: el.querySelector('[data-testid=note-frontmatter]')?.textContent,
  }));
  // The title once, in the header: the note's own H1 repeats it and is not drawn a second time.
  assert.deepEqual(note, { h1: undefined, strong: 'never', title: 'ADR-002 WAL journal mode', frontmatter: 'title: ADR-002 WAL journal mode\ncategory: decision\nstatus: accepted' });
  await page.screenshot({ path: join(SHOTS, 'console-search.png'), fullPage: true });
  // Its [[adr-003-single-writer]] link is resolved by the index and opens that note in the page.
  const link = '[data-testid=note-view] article a[data-note="02_Architecture/adr-003-single-writer.md"]';
  assert.equal(await page.textContent(link), 'adr-003-single-writer');
  await page.click(link);
  await page.waitForFunction(() => document.querySelector('[data-testid=note-title]')?.textContent === 'ADR-003 One writer process');
  // A relative Markdown link to a note is followed the same way; a link to another site stays inert.
  await page.click('[data-testid=note-view] article a[data-note="02_Architecture/adr-002-wal-mode.md"]');
  await page.waitForFunction(() => document.querySelector('[data-testid=note-title]')?.textContent === 'ADR-002 WAL journal mode');
});

test('markup inside a note is shown as text and runs nothing', async () => {
  await page.fill('[data-testid=search-input]', 'zebracorn');
  await page.press('[data-testid=search-input]', 'Enter');
  await page.click('[data-testid=hit][data-path="01_AI_Logs/hostile.md"] [data-testid=hit-title]');
  await page.waitForFunction(() => document.querySelector('[data-testid=note-title]')?.textContent === 'Hostile zebracorn note');
  const r = await page.$eval('[data-testid=note-view] article', (el) => ({
    active: el.querySelectorAll('script, img, iframe, [onerror], [href^="javascript:"], [href^="http"]').length,
    text: el.textContent ?? '',
    pwned: (window as unknown as { __k0pwned?: number }).__k0pwned ?? null,
  }));
  assert.equal(r.active, 0, 'no script, image, handler or followable outside link survives');
  assert.match(r.text, /<script>window.__k0pwned = 1<\/script>/, 'raw HTML is shown as text');
  assert.equal(r.pwned, null);
});

test('an offload shows its Mermaid diagram as inline SVG, the summary and the raw log lines by number', async () => {
  await page.click('[data-testid=tab-offloads]');
  await page.click(`[data-testid=offload-node][data-node-id=${nodeId}] button`);
  await page.waitForSelector('[data-testid=offload-diagram] svg', { timeout: 20_000 });
  const svgText = await page.$eval('[data-testid=offload-diagram] svg', (el) => el.textContent ?? '');
  assert.match(svgText, /ErrorDetected/, 'the diagram is the node\'s state diagram');
  assert.match(await page.textContent('[data-testid=offload-summary]') ?? '', new RegExp(nodeId));

  const raw = readFileSync(join(vault.root, `.k0maru/refs/pytest-run_${nodeId}.log`), 'utf8').split('\n');
  // The log window and the error ranges arrive by their own requests: wait for them, not for the diagram.
  await page.waitForSelector('[data-testid=log-lines] [data-line]', { timeout: 20_000 });
  await page.waitForSelector('[data-testid=log-range]', { timeout: 20_000 });
  const lines = await page.$$eval('[data-testid=log-lines] [data-line]', (els) => els.map((e) => [Number(e.getAttribute('data-line')), e.querySelector('code')?.textContent ?? '']));
  assert.ok(lines.length > 0 && lines.length <= 2000);
  for (const [n, text] of lines as [number, string][]) if (raw[n - 1]!.length < 200) assert.equal(text, raw[n - 1], `line ${n}`);
  const assertion = raw.findIndex((l) => l.startsWith('E       assert 61301 == 61300')) + 1;
  const range = await page.$eval('[data-testid=log-range]', (el) => [Number(el.getAttribute('data-from')), Number(el.getAttribute('data-to'))]);
  assert.ok(range[0]! <= assertion && assertion <= range[1]!, `the error range ${range} holds the failing assertion (line ${assertion})`);

  // Page back to the start, then jump to the error range again.
  const firstLine = () => page.$eval('[data-testid=log-lines] [data-line]', (el) => Number(el.getAttribute('data-line')));
  for (let first = await firstLine(); first > 1; first = await firstLine()) {
    await page.click('[data-testid=log-prev]');
    await page.waitForFunction((n) => document.querySelector('[data-testid=log-lines] [data-line]')?.getAttribute('data-line') !== String(n), first);
  }
  assert.equal(await page.isDisabled('[data-testid=log-prev]'), true, 'no page before line 1');
  await page.click('[data-testid=log-range]');
  await page.waitForSelector(`[data-testid=log-lines] [data-line="${assertion}"]`);
  await page.screenshot({ path: join(SHOTS, 'console-offloads.png'), fullPage: true });
});

test('the scoreboard shows what the index holds for offloads and GC, follows new offloads, and saved prices survive a reload', async () => {
  await page.click('[data-testid=tab-scoreboard]');
  await page.waitForSelector('[data-testid=savings-chart] svg');
  const value = async (id: string) => Number(await page.getAttribute(`[data-testid=${id}]`, 'data-value'));
  const totals = indexTotals(vault.root);
  assert.equal(totals.gcRuns, 1);
  assert.ok(totals.offload > 0 && totals.gc > 0, JSON.stringify(totals));
  assert.equal(await value('offload-saved'), totals.offload, 'offload figure = the index');
  assert.equal(await value('gc-saved'), totals.gc, 'GC figure = the index');
  assert.equal(await value('tokens-saved'), totals.offload + totals.gc);

  // A new offload while the page is open: the ledgerChanged event makes the page re-ask, and the index moved.
  // (This log is short: forced through with --threshold 0 its summary costs more than the log — a negative saving
  // the scoreboard reports as it is.)
  offload('go-nil-map-panic.log', 'go-test');
  await page.waitForFunction((n) => Number(document.querySelector('[data-testid=tokens-saved]')?.getAttribute('data-value')) !== n, totals.offload + totals.gc, { timeout: 15_000 });
  const moved = indexTotals(vault.root);
  const after = moved.offload + moved.gc;
  assert.notEqual(moved.offload, totals.offload);
  assert.equal(await value('tokens-saved'), after);

  await page.fill('[data-testid=price-row] >> nth=0 >> [data-testid=price-input]', '7.5');
  assert.ok(Math.abs(Number(await page.getAttribute('[data-testid=price-row] >> nth=0 >> [data-testid=usd-saved]', 'data-value')) - (after * 7.5) / 1e6) < 1e-9);
  await page.click('[data-testid=save-prices]');
  await page.waitForFunction(() => /Saved/.test(document.querySelector('[data-testid=prices-status]')?.textContent ?? ''));
  await page.screenshot({ path: join(SHOTS, 'console-scoreboard.png'), fullPage: true });

  await page.reload();
  await page.waitForSelector('body[data-ready=true]');
  await page.click('[data-testid=tab-scoreboard]');
  await page.waitForSelector('[data-testid=price-row]');
  assert.equal(await page.inputValue('[data-testid=price-row] >> nth=0 >> [data-testid=price-input]'), '7.5');
  const usd = Number(await page.getAttribute('[data-testid=price-row] >> nth=0 >> [data-testid=usd-saved]', 'data-value'));
  assert.ok(Math.abs(usd - (after * 7.5) / 1e6) < 1e-9, `usd saved ${usd} from the host`);
  assert.match(readFileSync(join(vault.root, '.k0maru/prices.json'), 'utf8'), /7\.5/);
});

test('every request the page made stayed on the console server, and the page logged no error or CSP violation', () => {
  const origin = new URL(server.url).origin;
  assert.ok(requests.length > 5);
  // data: URLs (the empty icon) never reach the network.
  const elsewhere = requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:'));
  assert.deepEqual(elsewhere, []);
  assert.ok(origin.startsWith('http://127.0.0.1:'));
  assert.deepEqual(consoleProblems, []);
});

test('without the right token, or with a foreign Host or Origin, the server answers 403', async () => {
  const { origin, searchParams } = new URL(server.url);
  const token = searchParams.get('token')!;
  const ready = JSON.stringify({ kind: 'ready', protocol: PROTOCOL_VERSION });
  const json = { 'content-type': 'application/json' };
  for (const [path, init] of [
    ['/', {}], ['/webview.js', {}], ['/events', {}], ['/rpc', { method: 'POST', body: ready, headers: json }],
    ['/rpc', { method: 'POST', body: ready, headers: { ...json, 'X-K0maru-Token': `${token}x` } }], [`/?token=${token.slice(1)}`, {}],
    ['/rpc', { method: 'POST', body: ready, headers: { ...json, 'X-K0maru-Token': token, Origin: 'http://evil.example' } }],
  ] as const) {
    const res = await fetch(origin + path, init as RequestInit);
    assert.equal(res.status, 403, `${(init as RequestInit).method ?? 'GET'} ${path} ${JSON.stringify((init as RequestInit).headers ?? {})}`);
  }
  const ok = await fetch(`${origin}/rpc`, { method: 'POST', body: ready, headers: { ...json, 'X-K0maru-Token': token } });
  assert.equal(ok.status, 200, 'the same request with the token is answered');
  assert.equal((await ok.json()).kind, 'hello');
  const port = Number(new URL(origin).port);
  const rebound = await new Promise<number>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: `/?token=${token}`, headers: { Host: `evil.example:${port}` } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(rebound, 403, 'a DNS-rebinding Host is refused');
});

test('SIGINT stops `k0maru ui` at once with exit code 0 and frees the port; the open page then says it lost the server', async () => {
  const port = Number(new URL(server.url).port);
  const code = await server.stop();
  assert.equal(code, 0);
  const refused = await new Promise<boolean>((resolve) => {
    const s = createConnection({ host: '127.0.0.1', port });
    s.on('connect', () => { s.destroy(); resolve(false); });
    s.on('error', () => resolve(true));
  });
  assert.ok(refused, `port ${port} is free`);
  await page.click('[data-testid=tab-search]');
  await page.fill('[data-testid=search-input]', 'WAL');
  await page.press('[data-testid=search-input]', 'Enter');
  await page.waitForSelector('[data-testid=host-error]:visible', { timeout: 10_000 });
  assert.match(await page.textContent('[data-testid=host-error]') ?? '', /cannot reach the console server/);
});
