import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { IndexDb } from '../index/db';
import { parseLedgerLine, type AnyLedgerEntry } from '../offload/ledger';
import { LEDGER_FILE } from '../offload/store';

/** Bytes compared to tell an appended-to ledger from a replaced one (git checkout, a teammate's merge). */
const HEAD_BYTES = 256;
const META_KEY = 'ledger_sync';

interface SyncState {
  offset: number;
  head: string;
  /** Ledger lines that were not entries, over the whole file so far. */
  skipped: number;
}

export interface LedgerSyncReport {
  added: number;
  /** Lines that were not ledger entries, in the whole ledger (skipped, counted, never fatal). */
  skipped: number;
  /** The ledger was replaced or shortened: every event was imported again. */
  reimported: boolean;
}

/**
 * Brings the index's token_events up to the ledger, reading only what was appended since the last sync
 * (the ledger only grows; a ledger that shrank or whose first bytes changed is imported again). Only whole
 * lines are read: a line being appended right now is picked up next time. Rules for the totals:
 *  - every offload counts, except those a GC run made (source 'gc'): the run's own line already holds them;
 *  - a GC run counts until the same session is collected again — the latest run says what the session saves.
 */
export function syncLedgerIntoIndex(index: IndexDb, refsDir: string): LedgerSyncReport {
  const report: LedgerSyncReport = { added: 0, skipped: 0, reimported: false };
  let fd: number;
  try {
    fd = openSync(join(refsDir, LEDGER_FILE), 'r');
  } catch {
    if (index.get('SELECT 1 FROM token_events LIMIT 1')) {
      index.write(() => {
        index.run('DELETE FROM token_events');
        index.run('DELETE FROM token_days');
        index.run('DELETE FROM meta WHERE key = ?', [META_KEY]);
      });
      report.reimported = true;
    }
    return report;
  }
  try {
    const size = fstatSync(fd).size;
    const headBuf = Buffer.alloc(Math.min(HEAD_BYTES, size));
    readSync(fd, headBuf, 0, headBuf.length, 0);
    const head = headBuf.toString('hex'); // hex: a prefix of the bytes is a prefix of the text
    const row = index.get('SELECT value FROM meta WHERE key = ?', [META_KEY]);
    let state: SyncState = { offset: 0, head: '', skipped: 0 };
    try {
      if (row) state = JSON.parse(String(row.value)) as SyncState;
    } catch {
      // unreadable state: import everything again
    }
    const comparable = Math.min(state.head.length, head.length);
    const replaced = size < state.offset || state.head.slice(0, comparable) !== head.slice(0, comparable) || (state.offset > 0 && !state.head);
    const from = replaced ? 0 : state.offset;
    report.skipped = replaced ? 0 : state.skipped || 0;
    if (from === size && !replaced) return report;
    const buf = Buffer.alloc(size - from);
    readSync(fd, buf, 0, buf.length, from);
    const end = buf.lastIndexOf(0x0a) + 1; // whole lines only
    const entries: AnyLedgerEntry[] = [];
    for (const line of buf.subarray(0, end).toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      const e = parseLedgerLine(line);
      if (e) entries.push(e);
      else report.skipped++;
    }
    index.write(() => {
      if (replaced) {
        index.run('DELETE FROM token_events');
        index.run('DELETE FROM token_days');
      }
      for (const e of entries) insertEvent(index, e);
      index.run('INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)', [META_KEY, JSON.stringify({ offset: from + end, head, skipped: report.skipped } satisfies SyncState)]);
    });
    report.added = entries.length;
    report.reimported = replaced && state.offset > 0;
    return report;
  } finally {
    closeSync(fd);
  }
}

function insertEvent(index: IndexDb, e: AnyLedgerEntry): void {
  const before = Math.round(e.tokens_before);
  const after = Math.round(e.tokens_after);
  if (e.kind === 'gc') {
    for (const prev of index.all("SELECT id, ts, tokens_before, tokens_after FROM token_events WHERE kind = 'gc' AND ref = ? AND counted = 1", [e.session_id])) {
      addToDay(index, String(prev.ts), 'gc', -1, -Number(prev.tokens_before), -Number(prev.tokens_after));
      index.run('UPDATE token_events SET counted = 0 WHERE id = ?', [prev.id]);
    }
    index.run("INSERT INTO token_events(ts, kind, source, ref, tokens_before, tokens_after, counted) VALUES (?, 'gc', 'gc', ?, ?, ?, 1)", [e.ts, e.session_id, before, after]);
    addToDay(index, e.ts, 'gc', 1, before, after);
    return;
  }
  const source = typeof e.source === 'string' ? e.source : 'api';
  const counted = source === 'gc' ? 0 : 1;
  index.run("INSERT INTO token_events(ts, kind, source, ref, tokens_before, tokens_after, counted) VALUES (?, 'offload', ?, ?, ?, ?, ?)", [e.ts, source, e.node_id, before, after, counted]);
  if (counted) addToDay(index, e.ts, 'offload', 1, before, after);
}

function addToDay(index: IndexDb, ts: string, kind: 'gc' | 'offload', events: number, before: number, after: number): void {
  index.run(
    `INSERT INTO token_days(day, kind, events, tokens_before, tokens_after) VALUES (substr(?, 1, 10), ?, ?, ?, ?)
     ON CONFLICT(day, kind) DO UPDATE SET events = events + excluded.events, tokens_before = tokens_before + excluded.tokens_before, tokens_after = tokens_after + excluded.tokens_after`,
    [ts, kind, events, before, after],
  );
}
