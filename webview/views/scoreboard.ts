/**
 * The token scoreboard: tokens agents did not have to read (offloads + GC), what that saved at each price tier,
 * an editable price table (saved to the vault with savePrices) and a chart of the cumulative savings.
 */
import { PriceTier, type Scoreboard } from '../../src/shared/protocol';
import { savingsChart } from '../chart';
import { errorLine, formatInt, formatUsd, h, replace } from '../dom';
import type { View } from '../main';
import type { ConsoleClient } from '../transport';

const MAX_TIERS = 12;

export function createScoreboardView(client: ConsoleClient): View {
  const figures = h('div', { class: 'figures' });
  const chart = h('div', { class: 'chart-box', testid: 'savings-chart' });
  const rows = h('tbody', {});
  const message = h('p', { class: 'status', testid: 'prices-status', 'aria-live': 'polite' });
  const source = h('p', { class: 'muted', testid: 'prices-source' });
  const addRow = h('button', { type: 'button', testid: 'add-price' }, '+ Tier');
  const save = h('button', { type: 'button', class: 'primary', testid: 'save-prices' }, 'Save prices');
  const table = h('table', { class: 'prices' },
    h('thead', {}, h('tr', {}, h('th', {}, 'Tier'), h('th', {}, 'Models'), h('th', {}, '$ / M input'), h('th', {}, 'Saved'), h('th', {}, ''))),
    rows);
  const element = h('section', { class: 'view scoreboard-view', testid: 'view-scoreboard' },
    figures, h('h3', {}, 'Cumulative tokens saved'), chart,
    h('h3', {}, 'Money saved by price tier'), table, h('div', { class: 'actions' }, addRow, save), source, message);

  let tokensSaved = 0;
  // Edits survive pushed refreshes until saved: a ledger event must not wipe what the user is typing.
  let dirty = false;

  const paint = (s: Scoreboard) => {
    tokensSaved = s.tokensSaved;
    replace(figures,
      figure('tokens-saved', 'Tokens saved', s.tokensSaved),
      figure('offload-saved', `Offloads (${s.offload.events})`, s.offload.tokensSaved),
      figure('gc-saved', `GC runs (${s.gc.events})`, s.gc.tokensSaved));
    replace(chart, savingsChart(s.series));
    if (!dirty) replace(rows, ...s.prices.map((t, i) => priceRow(t, s.usdSaved[i] ?? 0)));
    replace(source, s.pricesSource === 'vault' ? `Prices from ${s.pricesFile}` : `Built-in prices (saving writes ${s.pricesFile})`,
      s.skipped ? ` · ${s.skipped} unreadable ledger lines skipped` : '',
      s.first && s.last ? ` · ${s.first.slice(0, 10)} → ${s.last.slice(0, 10)}` : '');
  };

  const load = async () => {
    try {
      paint(await client.request('scoreboard', {}));
    } catch (e) {
      replace(figures, errorLine(e instanceof Error ? e.message : String(e)));
    }
  };

  const priceRow = (t: PriceTier, usd: number): HTMLElement => {
    const name = h('input', { type: 'text', value: t.name, 'aria-label': 'Tier name', testid: 'price-name', maxlength: 60 });
    const models = h('input', { type: 'text', value: t.models, 'aria-label': 'Models', testid: 'price-models', maxlength: 200 });
    const price = h('input', { type: 'number', value: t.usdPerMillionInput, min: 0, max: 10000, step: 'any', 'aria-label': 'USD per million input tokens', testid: 'price-input' });
    const saved = h('td', { class: 'usd', testid: 'usd-saved', 'data-value': usd }, formatUsd(usd));
    const remove = h('button', { type: 'button', class: 'link', 'aria-label': 'Remove tier', testid: 'remove-price' }, '✕');
    const row = h('tr', { testid: 'price-row' }, h('td', {}, name), h('td', {}, models), h('td', {}, price), saved, h('td', {}, remove));
    // The money column follows the edit at once (same formula as the host: tokens × $/M ÷ 1e6); the host's
    // figure replaces it after saving.
    price.addEventListener('input', () => {
      dirty = true;
      const v = Number(price.value);
      const usdNow = Number.isFinite(v) ? (tokensSaved * v) / 1e6 : 0;
      saved.dataset.value = String(usdNow);
      saved.textContent = formatUsd(usdNow);
    });
    name.addEventListener('input', () => (dirty = true));
    models.addEventListener('input', () => (dirty = true));
    remove.addEventListener('click', () => {
      if (rows.children.length <= 1) return;
      dirty = true;
      row.remove();
    });
    return row;
  };

  addRow.addEventListener('click', () => {
    if (rows.children.length >= MAX_TIERS) return;
    dirty = true;
    rows.appendChild(priceRow({ name: 'New tier', models: '', usdPerMillionInput: 1 }, tokensSaved / 1e6));
  });

  save.addEventListener('click', async () => {
    const tiers: PriceTier[] = [];
    for (const [i, row] of Array.from(rows.querySelectorAll('tr')).entries()) {
      const value = (id: string) => row.querySelector<HTMLInputElement>(`[data-testid=${id}]`)!.value;
      const parsed = PriceTier.safeParse({ name: value('price-name'), models: value('price-models'), usdPerMillionInput: Number(value('price-input')) });
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        replace(message, errorLine(`Row ${i + 1}: ${issue?.path.join('.')} ${issue?.message ?? 'is invalid'}`));
        return;
      }
      tiers.push(parsed.data);
    }
    save.disabled = true;
    try {
      const r = await client.request('savePrices', { tiers });
      dirty = false;
      replace(message, `Saved ${r.tiers} tier${r.tiers === 1 ? '' : 's'} to ${r.saved}`);
      await load();
    } catch (e) {
      replace(message, errorLine(e instanceof Error ? e.message : String(e)));
    } finally {
      save.disabled = false;
    }
  });

  return {
    element,
    refresh() {
      void load();
    },
  };
}

function figure(testid: string, label: string, value: number): HTMLElement {
  return h('div', { class: 'figure-card' },
    h('span', { class: 'figure-label' }, label),
    h('span', { class: 'figure-value', testid, 'data-value': value }, formatInt(value)));
}
