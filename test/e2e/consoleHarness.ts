import { join } from 'node:path';
import { IndexDb } from '../../src/core/index/db';
import { startUi, type RunningUi } from '../helpers/ui';

/** The built `k0maru ui` on a free port, serving `vaultRoot`. */
export function startUiOn(vaultRoot: string): Promise<RunningUi> {
  return startUi(['--vault', vaultRoot, '--port', '0']);
}

/**
 * What the index holds for the scoreboard, read straight from `.k0maru/index.db` (a second connection next to the
 * server's): the sums of the counted token_events rows per kind — not through the code that renders the page.
 */
export function indexTotals(vaultRoot: string): { offload: number; gc: number; gcRuns: number } {
  const db = IndexDb.open(join(vaultRoot, '.k0maru', 'index.db'));
  try {
    const sum = (kind: string) => db.get('SELECT COUNT(*) AS n, COALESCE(SUM(tokens_before - tokens_after), 0) AS saved FROM token_events WHERE counted = 1 AND kind = ?', [kind])!;
    const gc = sum('gc');
    return { offload: Number(sum('offload').saved), gc: Number(gc.saved), gcRuns: Number(gc.n) };
  } finally {
    db.close();
  }
}
