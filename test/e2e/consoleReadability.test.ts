/**
 * What a person reads in the console, checked in a real chromium against `k0maru ui` (the built CLI): the offload
 * diagram's labels are whole and apart and drawn in the page's palette (the cockpit's in the browser, the VS Code
 * theme's in a webview); figures read the same as the CLI's; small sums of money and one-day charts stay legible;
 * one repeated error is one jump button; opening a note keeps the search box in view and its title once.
 * The expected values come from the CLI's --json output, not from the code that renders the page.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { DIST_CLI, REPO } from '../helpers/build';
import { tempVault, type TempVault } from '../helpers/tempVault';
import { CHROMIUM_PATH } from '../integration/harness/browser';
import { openConsole } from './consoleHarness';
import type { RunningUi } from '../helpers/ui';
import { DIAGRAM_FACTS, assertPaintsFrom, edgeLabels, assertReadable, type DiagramFacts } from './diagramFacts';


interface OffloadJson {
  nodeId: string; text: string; mermaid: string; tokensBefore: number; tokensAfter: number; reduction: number;
  analysis: { errors: { code: string; logLine: number; location?: { file: string; line: number } }[] };
}

let vault: TempVault;
let server: RunningUi;
let browser: Browser;
let page: Page;
let booking: OffloadJson;

function cli(args: string[]): string {
  const r = spawnSync(process.execPath, [DIST_CLI, ...args, '--vault', vault.root], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, `k0maru ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

/** A Go test run where one failure repeats in nine subtests, followed by the passing packages (a real `go test ./...` shape). */
function bookingLog(): string {
  const out = ['=== RUN   TestBooking'];
  for (let i = 1; i <= 9; i++) {
    out.push(`=== RUN   TestBooking/room_${i}`, `    booking_test.go:62: reserve(room=${i}): seat already taken`, `--- FAIL: TestBooking/room_${i} (0.00s)`);
    for (let k = 1; k <= 12; k++) out.push(`=== RUN   TestBooking/room_${i}_guest_${k}`, `--- PASS: TestBooking/room_${i}_guest_${k} (0.00s)`);
  }
  out.push('--- FAIL: TestBooking (0.01s)', 'FAIL', 'FAIL\texample.com/hotel/booking\t0.012s');
  for (let i = 1; i <= 80; i++) out.push(`ok  \texample.com/hotel/pkg${i}\t0.0${10 + i}s`);
  return `${out.join('\n')}\n`;
}

/** A long note whose H1 repeats its frontmatter title, and enough other hits to fill the list. */
function notes(): Record<string, string> {
  const files: Record<string, string> = {
    '02_Architecture/adr-010-payment-retries.md': `---\ntitle: ADR-010 Payment retries\ncategory: decision\nstatus: accepted\n---\n# ADR-010 Payment retries\n\n${Array.from({ length: 120 }, (_, i) => `Paragraph ${i + 1}: a payment retry waits for the gateway before charging again.\n`).join('\n')}`,
  };
  for (let i = 1; i <= 12; i++) files[`01_AI_Logs/2026-01-${String(i).padStart(2, '0')}-payment.md`] = `# Payment session ${i}\nThe payment retry test ran against the gateway mock ${i} times.\n`;
  return files;
}

before(async () => {
  for (const f of [DIST_CLI, join(REPO, 'dist/webview/webview.js'), join(REPO, 'dist/webview/webview.css')]) {
    if (!existsSync(f)) throw new Error(`${f} is missing: run \`node esbuild.mjs\` first`);
  }
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`chromium not found at ${CHROMIUM_PATH} (apt-get install chromium)`);
  vault = tempVault(notes());
  const log = join(vault.root, 'go-test.log');
  writeFileSync(log, bookingLog());
  booking = JSON.parse(cli(['offload', '--threshold', '0', '--task', 'go-test', '--json', log]));
  ({ server, browser, page } = await openConsole(vault.root, { width: 1280, height: 800 }));
});

after(async () => {
  await browser?.close();
  await server?.stop();
  vault?.cleanup();
});

async function showDiagram(): Promise<DiagramFacts> {
  await page.click('[data-testid=tab-offloads]');
  await page.click(`[data-testid=offload-node][data-node-id=${booking.nodeId}] button`);
  await page.waitForSelector('[data-testid=offload-diagram] svg', { timeout: 20_000 });
  return page.evaluate(DIAGRAM_FACTS) as Promise<DiagramFacts>;
}

test('the offload diagram draws every transition label whole, apart from the others, in the cockpit palette (#0F172A / #22C55E)', async () => {
  const facts = await showDiagram();
  assert.ok(edgeLabels(booking.mermaid).some((l) => l.includes('booking_test.go:62')), `the root cause is a transition label: ${booking.mermaid}`);
  assertReadable(facts, booking.mermaid);
  assert.equal(facts.palette['--k-bg'], 'rgb(15, 23, 42)', 'the browser page is the cockpit (#0F172A)');
  assert.equal(facts.palette['--k-accent'], 'rgb(34, 197, 94)', 'the accent is #22C55E');
  assertPaintsFrom(facts, facts.palette);
});

test('inside a VS Code webview the diagram takes its colours from the --vscode-* theme variables', async () => {
  // What VS Code does to a webview: a theme class on <body> and the theme's colours as --vscode-* variables on
  // <html> (a light theme here, far from the cockpit palette). The page's own host attribute says vscode.
  const theme = { '--vscode-editor-background': '#fffffe', '--vscode-sideBar-background': '#f3f3f3', '--vscode-editorWidget-background': '#e8e8e8',
    '--vscode-panel-border': '#c8c8c8', '--vscode-foreground': '#3b3b3b', '--vscode-descriptionForeground': '#717171', '--vscode-font-family': 'sans-serif', '--vscode-font-size': '13px' };
  await page.evaluate(`(() => {
    document.body.dataset.host = 'vscode';
    document.body.classList.add('vscode-light');
    const vars = ${JSON.stringify(theme)};
    for (const [k, v] of Object.entries(vars)) document.documentElement.style.setProperty(k, v);
  })()`);
  try {
    await page.click('[data-testid=tab-search]');
    const facts = await showDiagram();
    assertReadable(facts, booking.mermaid);
    assert.equal(facts.palette['--k-bg'], 'rgb(255, 255, 254)', 'the page follows the theme');
    assertPaintsFrom(facts, facts.palette);
    assert.ok(!facts.paints.includes('rgb(15, 23, 42)'), 'no cockpit colour in a light VS Code theme');
    // The user switches to a dark theme: VS Code swaps the body class and the variables; the shown diagram follows.
    await page.evaluate(`(() => {
      document.documentElement.style.setProperty('--vscode-editor-background', '#1e1e1e');
      document.documentElement.style.setProperty('--vscode-editorWidget-background', '#252526');
      document.documentElement.style.setProperty('--vscode-foreground', '#cccccc');
      document.body.classList.replace('vscode-light', 'vscode-dark');
    })()`);
    await page.waitForFunction(() => Array.from(document.querySelectorAll('[data-testid=offload-diagram] svg g.node rect')).some((r) => getComputedStyle(r).fill === 'rgb(37, 37, 38)'), undefined, { timeout: 15_000 });
    const dark = await page.evaluate(DIAGRAM_FACTS) as DiagramFacts;
    assertPaintsFrom(dark, dark.palette);
    assert.ok(!dark.paints.includes('rgb(232, 232, 232)'), 'nothing of the light theme is left');
  } finally {
    await page.reload();
    await page.waitForSelector('body[data-ready=true]');
  }
});

test('an offload\'s token reduction reads as the CLI prints it (one decimal), not rounded to a whole percent', async () => {
  const cliPct = /([\d.]+)% token reduction/.exec(booking.text)?.[1];
  assert.ok(cliPct, booking.text);
  const ownPct = ((1 - booking.tokensAfter / booking.tokensBefore) * 100).toFixed(1);
  assert.equal(cliPct, ownPct, 'the CLI prints the ledger figures to one decimal');
  await page.click('[data-testid=tab-offloads]');
  const shown = await page.textContent(`[data-testid=offload-node][data-node-id=${booking.nodeId}] .node-saved`);
  const int = (n: number) => n.toLocaleString('en-US');
  assert.equal(shown, `${int(booking.tokensBefore)} → ${int(booking.tokensAfter)} tokens (−${cliPct}%)`);
});

test('the scoreboard shows a saving below one cent as "<$0.01", never "$0.00"', async () => {
  await page.click('[data-testid=tab-scoreboard]');
  await page.waitForSelector('[data-testid=price-row]');
  const saved = Number(await page.getAttribute('[data-testid=tokens-saved]', 'data-value'));
  assert.equal(saved, booking.tokensBefore - booking.tokensAfter);
  const cells = await page.$$eval('[data-testid=usd-saved]', (els) => els.map((e) => [Number(e.getAttribute('data-value')), e.textContent]));
  for (const [usd, text] of cells as [number, string][]) {
    if (usd > 0 && usd < 0.01) assert.equal(text, '<$0.01', `${usd} USD`);
    else assert.equal(text, `$${usd.toFixed(2)}`);
  }
  assert.ok(cells.some(([usd]) => (usd as number) > 0 && (usd as number) < 0.01), `the fixture saves less than a cent at some tier: ${JSON.stringify(cells)}`);
  // The figure a person types follows the same rule.
  await page.fill('[data-testid=price-row] >> nth=0 >> [data-testid=price-input]', '0.5');
  assert.equal(await page.textContent('[data-testid=price-row] >> nth=0 >> [data-testid=usd-saved]'), '<$0.01');
  await page.fill('[data-testid=price-row] >> nth=0 >> [data-testid=price-input]', '0');
  assert.equal(await page.textContent('[data-testid=price-row] >> nth=0 >> [data-testid=usd-saved]'), '$0.00');
});

test('a savings chart of one day is one marked point with its value, not a filled block', async () => {
  await page.click('[data-testid=tab-scoreboard]');
  await page.waitForSelector('[data-testid=savings-chart] svg .dot');
  const c = await page.evaluate(`(() => {
    const svg = document.querySelector('[data-testid=savings-chart] svg');
    const plot = svg.getBoundingClientRect();
    const filled = [...svg.querySelectorAll('polygon, rect, path')].map((e) => {
      const b = e.getBoundingClientRect();
      const cs = getComputedStyle(e);
      return cs.fill === 'none' || Number(cs.fillOpacity) === 0 ? 0 : (b.width * b.height) / (plot.width * plot.height);
    });
    return { dots: svg.querySelectorAll('.dot').length, days: [...svg.querySelectorAll('.dot')].map((d) => d.getAttribute('data-day')),
      filled: Math.max(0, ...filled), text: svg.textContent };
  })()`) as { dots: number; days: string[]; filled: number; text: string };
  assert.equal(c.dots, 1, 'one day, one point');
  assert.ok(c.filled < 0.1, `a shape fills ${(c.filled * 100).toFixed(0)}% of the chart`);
  const saved = booking.tokensBefore - booking.tokensAfter;
  assert.match(c.text, new RegExp(saved.toLocaleString('en-US')), 'the point says how much it stands for');
  assert.match(c.text, new RegExp(c.days[0]!), 'and which day');
});

test('one error repeated in many places is one jump button that steps through its places', async () => {
  await page.click('[data-testid=tab-offloads]');
  await page.click(`[data-testid=offload-node][data-node-id=${booking.nodeId}] button`);
  await page.waitForSelector('[data-testid=log-range]', { timeout: 20_000 });
  const where = (e: OffloadJson['analysis']['errors'][number]) => `${e.code}@${e.location ? `${e.location.file}:${e.location.line}` : ''}`;
  const distinct = new Map<string, number[]>();
  for (const e of booking.analysis.errors) distinct.set(where(e), [...(distinct.get(where(e)) ?? []), e.logLine]);
  // (The analysis keeps the first few places of a repeated error, not necessarily all nine.)
  const repeated = [...distinct.values()].sort((a, b) => b.length - a.length)[0]!;
  assert.ok(repeated.length >= 5, `the analysis finds the booking failure in several places: ${JSON.stringify([...distinct])}`);
  const buttons = await page.$$eval('[data-testid=log-range]', (els) => els.map((e) => ({ count: Number(e.getAttribute('data-places') ?? 1), text: e.textContent ?? '' })));
  assert.ok(buttons.length <= distinct.size, `${buttons.length} jump buttons for ${distinct.size} distinct errors: ${JSON.stringify(buttons)}`);
  const group = buttons.findIndex((b) => b.count === repeated.length);
  assert.ok(group >= 0, `one button stands for the ${repeated.length} places: ${JSON.stringify(buttons)}`);
  assert.match(buttons[group]!.text, new RegExp(`${repeated.length} places`));
  const button = page.locator('[data-testid=log-range]').nth(group);
  for (const line of repeated) {
    await button.click();
    await page.waitForSelector(`[data-testid=log-lines] [data-line="${line}"].current`, { timeout: 10_000 });
  }
});

/**
 * Empties the hits and the note pane, so the waits that follow see this search's hits and this click's note, not
 * the ones an earlier test left (the same query, the same note: the waits would pass before anything happened).
 */
async function clearSearchView(): Promise<void> {
  await page.evaluate(() => {
    document.querySelector('[data-testid=hits]')?.replaceChildren();
    document.querySelector('[data-testid=note-view]')?.replaceChildren();
  });
}

test('opening a note from a hit keeps the search box on screen and shows the note\'s title once', async () => {
  await page.click('[data-testid=tab-search]');
  await page.fill('[data-testid=search-input]', 'payment retry gateway');
  await clearSearchView();
  await page.press('[data-testid=search-input]', 'Enter');
  const hit = '[data-testid=hit][data-path="02_Architecture/adr-010-payment-retries.md"] [data-testid=hit-title]';
  await page.waitForSelector(hit, { timeout: 20_000 });
  assert.ok(await page.$$eval('[data-testid=hit]', (els) => els.length) >= 10, 'a list longer than the screen');
  await page.click(hit);
  await page.waitForFunction(() => (document.querySelector('[data-testid=note-view]')?.textContent ?? '').includes('Paragraph 120'));
  const seen = await page.evaluate(`(() => {
    const r = (sel) => { const b = document.querySelector(sel).getBoundingClientRect(); return { top: b.top, bottom: b.bottom }; };
    const view = document.querySelector('[data-testid=note-view]');
    const titles = [...view.querySelectorAll('h1, h2, h3, [data-testid=note-title]')].filter((e) => e.textContent.trim() === 'ADR-010 Payment retries');
    return { input: r('[data-testid=search-input]'), title: r('[data-testid=note-title]'), height: window.innerHeight, titles: titles.length };
  })()`) as { input: { top: number; bottom: number }; title: { top: number; bottom: number }; height: number; titles: number };
  assert.ok(seen.input.top >= 0 && seen.input.bottom <= seen.height, `the search box left the screen: ${JSON.stringify(seen)}`);
  assert.ok(seen.title.top >= 0 && seen.title.bottom <= seen.height, `the note's title is not on screen: ${JSON.stringify(seen)}`);
  assert.equal(seen.titles, 1, 'the title is shown once (not as a header and again as the first heading)');
});

test('in a narrow pane (the width of the VS Code sidebar) the note opens in view under a search box that stays on screen, and the diagram stays whole', async () => {
  await page.setViewportSize({ width: 360, height: 700 });
  try {
    await page.click('[data-testid=tab-search]');
    await page.fill('[data-testid=search-input]', 'payment retry gateway');
    await clearSearchView();
    await page.press('[data-testid=search-input]', 'Enter');
    const hit = '[data-testid=hit][data-path="02_Architecture/adr-010-payment-retries.md"] [data-testid=hit-title]';
    await page.waitForSelector(hit, { timeout: 20_000 });
    await page.click(hit);
    await page.waitForFunction(() => (document.querySelector('[data-testid=note-view]')?.textContent ?? '').includes('Paragraph 120'));
    const seen = await page.evaluate(`(() => {
      const r = (sel) => { const b = document.querySelector(sel).getBoundingClientRect(); return { top: b.top, bottom: b.bottom }; };
      return { input: r('[data-testid=search-input]'), title: r('[data-testid=note-title]'), height: window.innerHeight };
    })()`) as { input: { top: number; bottom: number }; title: { top: number; bottom: number }; height: number };
    assert.ok(seen.input.top >= 0 && seen.input.bottom <= seen.height, `the search box left the screen: ${JSON.stringify(seen)}`);
    assert.ok(seen.title.top >= seen.input.bottom && seen.title.bottom <= seen.height, `the note's title is not in view below the search box: ${JSON.stringify(seen)}`);
    assertReadable(await showDiagram(), booking.mermaid);
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
});
