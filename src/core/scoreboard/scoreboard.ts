import type { Scoreboard } from '../../shared/protocol';
import type { Project } from '../project';
import { syncLedgerIntoIndex } from './ledgerSync';
import { readPrices } from './prices';

type Totals = Scoreboard['offload'];

/**
 * The token scoreboard, read from the index after bringing it up to the ledger: what offloads and GC runs
 * saved, per day, and what that is worth at each price tier. Figures come from token_days, the per-day sums of
 * the `counted` rows of token_events (a test checks the two agree), so a read costs O(days).
 */
export function readScoreboard(project: Pick<Project, 'index' | 'paths'>): Scoreboard {
  const sync = syncLedgerIntoIndex(project.index, project.paths.refsDir);
  const idx = project.index;
  const totals = (kind: string): Totals => {
    const r = idx.get(
      'SELECT COALESCE(SUM(events), 0) AS n, COALESCE(SUM(tokens_before), 0) AS b, COALESCE(SUM(tokens_after), 0) AS a FROM token_days WHERE kind = ?',
      [kind],
    )!;
    const b = Number(r.b);
    const a = Number(r.a);
    return { events: Number(r.n), tokensBefore: b, tokensAfter: a, tokensSaved: b - a };
  };
  const offload = totals('offload');
  const gc = totals('gc');
  const tokensSaved = offload.tokensSaved + gc.tokensSaved;
  let cumulative = 0;
  const series = idx
    .all('SELECT day, SUM(tokens_before - tokens_after) AS saved FROM token_days WHERE events > 0 GROUP BY day ORDER BY day')
    .map((r) => {
      cumulative += Number(r.saved);
      return { day: String(r.day), tokensSaved: Number(r.saved), cumulative };
    });
  const span = idx.get('SELECT MIN(day) AS first, MAX(day) AS last FROM token_days WHERE events > 0');
  const prices = readPrices(project.paths);
  return {
    tokensSaved,
    offload,
    gc,
    series,
    prices: prices.tiers,
    pricesSource: prices.source,
    pricesFile: prices.file,
    ...(prices.warning ? { pricesWarning: prices.warning } : {}),
    usdSaved: prices.tiers.map((t) => (tokensSaved / 1_000_000) * t.usdPerMillionInput),
    ...(span?.first ? { first: String(span.first), last: String(span.last) } : {}),
    skipped: sync.skipped,
  };
}
