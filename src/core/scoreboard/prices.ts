import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { z } from 'zod';
import { PriceTier } from '../../shared/protocol';
import { K0Error } from '../errors';
import { writeFileAtomic } from '../fsutil/atomicWrite';
import type { VaultPaths } from '../vault/paths';

export const PRICES_FILE = 'prices.json';

/**
 * What a saved token is worth: the price of one input token, because context an agent no longer has to read is
 * input it is not billed for. Illustrative list prices per million input tokens for three classes of model —
 * not a quote: teams edit them (in the console or in `.k0maru/prices.json`) to what they actually pay.
 */
export const DEFAULT_PRICES: PriceTier[] = [
  { name: 'Frontier', models: 'largest reasoning models (Opus-class)', usdPerMillionInput: 15 },
  { name: 'Balanced', models: 'mid-size coding models (Sonnet / GPT-class)', usdPerMillionInput: 3 },
  { name: 'Fast', models: 'small models (Haiku / mini-class)', usdPerMillionInput: 1 },
];

const PricesFile = z.object({ tiers: z.array(PriceTier).min(1).max(12) });

export interface Prices {
  tiers: PriceTier[];
  source: 'vault' | 'defaults';
  /** Project-relative path of the file (whether or not it exists). */
  file: string;
  warning?: string;
}

export function readPrices(paths: Pick<VaultPaths, 'k0Dir' | 'projectRoot'>): Prices {
  const abs = join(paths.k0Dir, PRICES_FILE);
  const file = relative(paths.projectRoot, abs).split('\\').join('/');
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch {
    return { tiers: DEFAULT_PRICES, source: 'defaults', file };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { tiers: DEFAULT_PRICES, source: 'defaults', file, warning: `${file} is not valid JSON (${(err as Error).message}); showing the default prices` };
  }
  const r = PricesFile.safeParse(parsed);
  if (!r.success) {
    const i = r.error.issues[0];
    return { tiers: DEFAULT_PRICES, source: 'defaults', file, warning: `${file}: ${i?.path.join('.') || '(file)'}: ${i?.message ?? 'invalid'}; showing the default prices` };
  }
  return { tiers: r.data.tiers, source: 'vault', file };
}

/** Replaces the vault's price table atomically (a killed process leaves the old file or the new one). */
export function savePrices(paths: Pick<VaultPaths, 'k0Dir' | 'projectRoot'>, tiers: PriceTier[]): { saved: string; tiers: number } {
  const r = PricesFile.safeParse({ tiers });
  if (!r.success) throw new K0Error('INVALID_ARGUMENT', `invalid price table: ${r.error.issues[0]?.message ?? 'invalid'}`);
  const abs = join(paths.k0Dir, PRICES_FILE);
  writeFileAtomic(abs, JSON.stringify({ tiers: r.data.tiers }, null, 2) + '\n');
  return { saved: relative(paths.projectRoot, abs).split('\\').join('/'), tiers: r.data.tiers.length };
}
