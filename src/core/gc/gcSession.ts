import { createHash } from 'node:crypto';
import { K0Error } from '../errors';
import { appendLedger, countTokensSafe, formatLocation, offloadLog } from '../offload';
import type { VaultPaths } from '../vault/paths';
import { FactCollector, type NodeRef } from './digest';
import { KNOWN_ROLES, parseGcOptions, parseTrajectory, type Turn } from './schema';

/** A tool output this long is folded even with few lines (one minified bundle line, a base64 blob). */
export const MAX_INLINE_OUTPUT_CHARS = 8000;

/** Context share the seed calls the cognitive Smart-Zone. */
export const SMART_ZONE = { min: 0.15, max: 0.6 } as const;

export interface GcInput {
  /** The seed's contract: a JSON string of `{session_id, turns}`. */
  trajectory_json?: string;
  /** Or the parsed object (CLI, tests). */
  trajectory?: unknown;
  threshold?: number;
  hot_window?: number;
  warm_window?: number;
  context_window?: number;
}

export interface GcMeta {
  tier: 2 | 3 | 4;
  node_id?: string;
  same_as_turn?: number;
  seen?: number;
  digest_of?: [number, number];
}

export type GcTurn = Turn & { k0maru_gc?: GcMeta };

export interface GcReport {
  session_id: string;
  turns_before: number;
  turns_after: number;
  tokens_before: number;
  tokens_after: number;
  /** Token reduction ratio: 1 − after / before. */
  trr: number;
  context_window: number;
  share_before: number;
  share_after: number;
  zone: 'below' | 'smart' | 'above';
  in_smart_zone: boolean;
  tiers: { hot: number; warm_folded: number; collapsed: number; digested: number };
  /** The first result was above the Smart-Zone, so the warm window was digested as well. */
  tightened: boolean;
  nodes_created: NodeRef[];
  unknown_roles: { turn: number; role: string }[];
}

export interface GcResult {
  trajectory: { session_id: string; turns: GcTurn[] };
  report: GcReport;
  digest: string;
}

/** What the model reads of a turn; tokens are counted on this, the same way before and after. */
function turnText(t: Turn): string {
  return `${t.role}${t.tool_name ? ` (${t.tool_name})` : ''}: ${t.content}${t.tool_output ? `\n${t.tool_output}` : ''}`;
}

function lineCount(s: string): number {
  if (!s) return 0;
  let n = 1;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) if (i < s.length - 1) n++;
  return n;
}

/** The tool output of a turn: `tool_output`, or the content of a `tool` turn. */
function outputOf(t: Turn): { text: string; field: 'tool_output' | 'content' } | undefined {
  if (t.tool_output) return { text: t.tool_output, field: 'tool_output' };
  if (t.role === 'tool' && t.content) return { text: t.content, field: 'content' };
  return undefined;
}

interface Folded {
  ref: NodeRef;
  /** Index of the first turn with this output (or this error signature). */
  firstTurn: number;
}

/**
 * Context GC in four deterministic tiers (documented in docs/economy.md):
 *  1. hot window — the last `hot_window` turns are returned untouched;
 *  2. fold — tool outputs over `threshold` lines in older turns go to offload nodes, replaced by a reference;
 *  3. collapse — repeats of the same dump (same bytes, or same error code + root + tool) keep one reference and a count;
 *  4. digest — turns older than the warm window become one digest of files, error codes, decisions and commands.
 */
export async function gcSession(paths: Pick<VaultPaths, 'refsDir' | 'projectRoot'>, input: GcInput): Promise<GcResult> {
  if ((input.trajectory_json === undefined) === (input.trajectory === undefined)) {
    throw new K0Error('INVALID_ARGUMENT', 'gc needs exactly one of trajectory_json or trajectory');
  }
  const traj = parseTrajectory(input.trajectory_json ?? input.trajectory);
  const opts = parseGcOptions({ threshold: input.threshold, hot_window: input.hot_window, warm_window: input.warm_window, context_window: input.context_window });
  const turns = traj.turns;
  const n = turns.length;
  const hotStart = Math.max(0, n - opts.hot_window);
  const defaultWarmStart = Math.max(0, hotStart - (opts.warm_window ?? opts.hot_window * 2));
  const known = new Set<string>(KNOWN_ROLES);
  const unknownRoles = turns.map((t, i) => ({ turn: i + 1, role: t.role })).filter((u) => !known.has(u.role));

  // Tiers 2 and 3 over every turn before the hot window: fold big outputs, group repeats.
  const byHash = new Map<string, Folded>();
  const bySignature = new Map<string, Folded>();
  const foldOf = new Map<number, { folded: Folded; repeat: boolean }>();
  const shortRepeat = new Map<number, number>(); // turn index → first identical turn index
  const shortSeen = new Map<string, number>();
  const nodes: NodeRef[] = [];
  for (let i = 0; i < hotStart; i++) {
    const t = turns[i];
    if (!known.has(t.role)) continue;
    const out = outputOf(t);
    if (!out) continue;
    const hash = createHash('sha256').update(out.text).digest('hex');
    if (lineCount(out.text) <= opts.threshold && out.text.length <= MAX_INLINE_OUTPUT_CHARS) {
      // Short outputs are only collapsed when repeated verbatim (a status line run 40 times).
      const first = shortSeen.get(hash);
      if (first !== undefined && lineCount(out.text) >= 2) shortRepeat.set(i, first);
      else if (first === undefined) shortSeen.set(hash, i);
      continue;
    }
    const same = byHash.get(hash);
    if (same) {
      same.ref.count++;
      foldOf.set(i, { folded: same, repeat: true });
      continue;
    }
    const r = await offloadLog(paths, { text: out.text, taskName: `gc-${traj.session_id}`, threshold: opts.threshold, source: 'gc' });
    const p = r.analysis.primary;
    const sig = p ? `${t.tool_name ?? ''}|${p.code}|${formatLocation(p.location)}` : undefined;
    const sameSig = sig ? bySignature.get(sig) : undefined;
    if (sameSig) {
      // A re-run that failed the same way: the new raw log is still stored (its node is listed) but the
      // context keeps one instance.
      sameSig.ref.count++;
      foldOf.set(i, { folded: sameSig, repeat: true });
      nodes.push({ node_id: r.nodeId!, turn: i + 1, tool_name: t.tool_name, lines: r.lines, primary: p?.code, root: formatLocation(p?.location) || undefined, count: 1, codes: Object.keys(r.analysis.codeCounts) });
      continue;
    }
    const ref: NodeRef = { node_id: r.nodeId!, turn: i + 1, tool_name: t.tool_name, lines: r.lines, primary: p?.code, root: formatLocation(p?.location) || undefined, count: 1, codes: Object.keys(r.analysis.codeCounts) };
    nodes.push(ref);
    const folded = { ref, firstTurn: i };
    byHash.set(hash, folded);
    if (sig) bySignature.set(sig, folded);
    foldOf.set(i, { folded, repeat: false });
  }

  /** Tier 4 and the output for a given start of the warm window (the fold and collapse above are reused). */
  const assemble = (warmStart: number) => {
    // Tier 4: digest of the cold turns.
    const facts = new FactCollector();
    const kept: GcTurn[] = [];
    let digested = 0;
    for (let i = 0; i < warmStart; i++) {
      const t = turns[i];
      // Verbatim: unknown roles (we do not know what they mean to the agent) and the digest of an earlier GC
      // (re-digesting a digest would lose its command list and node table).
      if (!known.has(t.role) || (t as GcTurn).k0maru_gc?.tier === 4) {
        kept.push(t);
        continue;
      }
      digested++;
      const turnNo = i + 1;
      const out = outputOf(t);
      const fold = foldOf.get(i);
      const prose = out?.field === 'content' ? '' : t.content;
      if (prose) {
        facts.scanText(prose, turnNo);
        if (t.role !== 'tool') facts.scanDecisions(prose, turnNo, t.role);
        facts.scanCommands(prose, turnNo, t.tool_name);
        if (t.role === 'user') facts.addRequest(prose, turnNo);
      }
      if (out && fold) {
        // The raw text lives in the node; the digest carries its primary error and root.
        const ref = fold.folded.ref;
        if (ref.primary) facts.addCode(ref.primary, turnNo, ref.root, ref.node_id);
        for (const c of ref.codes ?? []) if (c !== ref.primary && c !== 'build-failed') facts.addCode(c, turnNo, undefined, ref.node_id);
      } else if (out) {
        facts.scanText(out.text, turnNo);
      }
    }
    for (const ref of nodes) if (ref.turn <= warmStart) facts.nodes.push(ref);
    const digest = warmStart > 0 ? facts.render(traj.session_id, 1, warmStart) : '';

    const outTurns: GcTurn[] = [];
    // Kept turns first: an earlier digest covers older history than the new one.
    outTurns.push(...kept);
    if (digest) outTurns.push({ role: 'system', content: digest, k0maru_gc: { tier: 4, digest_of: [1, warmStart] } });
    let warmFolded = 0;
    let collapsed = 0;
    for (let i = warmStart; i < n; i++) {
      const t = turns[i];
      if (i >= hotStart || !known.has(t.role)) {
        outTurns.push(t);
        continue;
      }
      const out = outputOf(t);
      const fold = foldOf.get(i);
      const firstShort = shortRepeat.get(i);
      if (out && fold) {
        const ref = fold.folded.ref;
        let text: string;
        if (fold.repeat) {
          collapsed++;
          text = `[k0maru: same failure as turn ${ref.turn} → ${ref.node_id}]`;
        } else {
          warmFolded++;
          const what = [ref.primary, ref.root ? `at ${ref.root}` : ''].filter(Boolean).join(' ');
          text = `[k0maru: ${ref.lines} lines offloaded → ${ref.node_id}${what ? ` · ${what}` : ''}${ref.count > 1 ? ` · seen ${ref.count}×` : ''}; inspect_log_node for the raw text]`;
        }
        const meta: GcMeta = fold.repeat ? { tier: 3, node_id: ref.node_id, same_as_turn: ref.turn } : { tier: 2, node_id: ref.node_id, seen: ref.count };
        outTurns.push({ ...t, [out.field]: text, k0maru_gc: meta });
      } else if (out && firstShort !== undefined) {
        collapsed++;
        outTurns.push({ ...t, [out.field]: `[k0maru: identical output to turn ${firstShort + 1}]`, k0maru_gc: { tier: 3, same_as_turn: firstShort + 1 } });
      } else outTurns.push(t);
    }
    const tokensAfter = outTurns.reduce((s, t) => s + countTokensSafe(turnText(t)), 0);
    return { outTurns, digest, digested, warmFolded, collapsed, tokensAfter };
  };

  const tokensBefore = turns.reduce((s, t) => s + countTokensSafe(turnText(t)), 0);
  let built = assemble(defaultWarmStart);
  // Above the Smart-Zone with the default warm window: digest the warm turns too (the hot window stays untouched).
  let tightened = false;
  if (built.tokensAfter / opts.context_window > SMART_ZONE.max && opts.warm_window === undefined && defaultWarmStart < hotStart) {
    built = assemble(hotStart);
    tightened = true;
  }
  const { outTurns, digest, digested, warmFolded, collapsed, tokensAfter } = built;
  const shareAfter = tokensAfter / opts.context_window;
  const zone = shareAfter < SMART_ZONE.min ? 'below' : shareAfter > SMART_ZONE.max ? 'above' : 'smart';
  // The run's saving goes on the token scoreboard (the ledger is where offloads are recorded too).
  if (tokensBefore > tokensAfter) {
    appendLedger(paths.refsDir, {
      kind: 'gc',
      ts: new Date().toISOString(),
      session_id: traj.session_id,
      turns_before: n,
      turns_after: outTurns.length,
      tokens_before: tokensBefore,
      tokens_after: tokensAfter,
      reduction: Math.round((1 - tokensAfter / tokensBefore) * 10000) / 10000,
      source: 'gc',
    });
  }
  return {
    trajectory: { session_id: traj.session_id, turns: outTurns },
    digest,
    report: {
      session_id: traj.session_id,
      turns_before: n,
      turns_after: outTurns.length,
      tokens_before: tokensBefore,
      tokens_after: tokensAfter,
      trr: tokensBefore > 0 ? 1 - tokensAfter / tokensBefore : 0,
      context_window: opts.context_window,
      share_before: tokensBefore / opts.context_window,
      share_after: shareAfter,
      zone,
      in_smart_zone: zone === 'smart',
      tiers: { hot: n - hotStart, warm_folded: warmFolded, collapsed, digested },
      tightened,
      nodes_created: nodes,
      unknown_roles: unknownRoles,
    },
  };
}
