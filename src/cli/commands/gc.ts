import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { K0Error } from '../../core/errors';
import { gcSession } from '../../core/gc';
import { locateVault } from '../../core/vault/paths';
import { EXIT, readAll, writeJson, writeLine, type Command } from '../command';

function optInt(name: string, v: unknown): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n)) throw new K0Error('INVALID_ARGUMENT', `--${name} must be an integer, got ${String(v)}`);
  return n;
}

const pct = (r: number) => `${(r * 100).toFixed(1)}%`;

export const gcCommand: Command = {
  name: 'gc',
  summary: 'Compact a long agent session trajectory (4 tiers); big tool outputs become offload nodes',
  usage: 'gc [--threshold N] [--hot-window N] [--warm-window N] [--context-window N] [--json] [FILE | < trajectory.json]',
  options: {
    threshold: { type: 'string' },
    'hot-window': { type: 'string' },
    'warm-window': { type: 'string' },
    'context-window': { type: 'string' },
  },
  allowPositionals: true,
  async run({ values, positionals, vault, io, json }) {
    if (positionals.length > 1) throw new K0Error('INVALID_ARGUMENT', 'gc takes at most one FILE');
    const file = positionals[0];
    const text = file && file !== '-' ? readFileSync(resolve(io.cwd, file), 'utf8') : await readAll(io.stdin);
    const paths = locateVault({ vault, cwd: io.cwd, env: io.env });
    const r = await gcSession(paths, {
      trajectory_json: text,
      threshold: optInt('threshold', values.threshold),
      hot_window: optInt('hot-window', values['hot-window']),
      warm_window: optInt('warm-window', values['warm-window']),
      context_window: optInt('context-window', values['context-window']),
    });
    if (json) {
      writeJson(io.stdout, { trajectory: r.trajectory, report: r.report });
      return EXIT.OK;
    }
    const rep = r.report;
    writeLine(io.stdout, `✓ Session ${rep.session_id} compacted: ${rep.turns_before} → ${rep.turns_after} turns, ${rep.tokens_before} → ${rep.tokens_after} tokens (TRR ${pct(rep.trr)})`);
    writeLine(io.stdout, `  Context: ${pct(rep.share_before)} → ${pct(rep.share_after)} of ${rep.context_window} tokens (${rep.in_smart_zone ? 'in' : rep.zone} the 15–60% Smart-Zone${rep.in_smart_zone ? '' : ''})`);
    writeLine(io.stdout, `  Tiers: ${rep.tiers.hot} hot, ${rep.tiers.warm_folded} folded, ${rep.tiers.collapsed} collapsed, ${rep.tiers.digested} digested; ${rep.nodes_created.length} offload nodes`);
    if (rep.facts_kept.length) {
      const byKind = new Map<string, number>();
      for (const f of rep.facts_kept) byKind.set(f.kind, (byKind.get(f.kind) ?? 0) + 1);
      writeLine(io.stdout, `  Facts kept in the digest: ${rep.facts_kept.length} (${[...byKind].map(([k, c]) => `${c} ${k}`).join(', ')}); --json lists them with their turn`);
    }
    for (const u of rep.unknown_roles) writeLine(io.stderr, `note: turn ${u.turn} has unknown role '${u.role}': kept verbatim`);
    if (r.digest) writeLine(io.stdout, `\n${r.digest}`);
    return EXIT.OK;
  },
};
