/**
 * The offload viewer's jump buttons: one per distinct error, not one per place it was seen. A failure repeated in
 * nine subtests is nine ranges with the same label; they become one group that steps through its places, and
 * places whose ranges overlap (two lines of one report) are one place. Pure: no DOM, unit-tested in node.
 */
import type { LineRange } from '../../src/shared/protocol';

export interface RangeGroup {
  label: string;
  /** How many times the error was seen (ranges with this label). */
  seen: number;
  /** The places, in log order; each is the union of the overlapping ranges that share the label. */
  places: { from: number; to: number }[];
}

export function groupRanges(ranges: readonly LineRange[]): RangeGroup[] {
  const byLabel = new Map<string, { from: number; to: number }[]>();
  for (const r of ranges) {
    const list = byLabel.get(r.label) ?? [];
    list.push({ from: r.from, to: r.to });
    byLabel.set(r.label, list);
  }
  const groups: RangeGroup[] = [];
  for (const [label, list] of byLabel) {
    list.sort((a, b) => a.from - b.from || a.to - b.to);
    const places: { from: number; to: number }[] = [];
    for (const r of list) {
      const last = places.at(-1);
      if (last && r.from <= last.to) last.to = Math.max(last.to, r.to);
      else places.push({ ...r });
    }
    groups.push({ label, seen: list.length, places });
  }
  // The group seen first in the log comes first, as the ranges did.
  return groups.sort((a, b) => a.places[0]!.from - b.places[0]!.from);
}
