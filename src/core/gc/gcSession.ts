import { createHash } from 'node:crypto';
import { K0Error } from '../errors';
import { throwIfCancelled } from '../host/cancel';
import { appendLedger, countTokensSafe, formatLocation, offloadLog } from '../offload';
import type { VaultPaths } from '../vault/paths';
import { aboutOf, distinctErrors, FactCollector, type NodeRef } from './digest';
import { testNamesIn, testsWrittenBy, type Fact } from './facts';
import { excerptOf, HOT_EXCERPT, isErrorLine, renderExcerpt, splitPaste, WARM_EXCERPT, type Excerpt, type PasteSplit } from './fold';
import { KNOWN_ROLES, parseGcOptions, parseTrajectory, type Turn } from './schema';

/** A tool output this long is folded even with few lines (one minified bundle line, a base64 blob). */
export const MAX_INLINE_OUTPUT_CHARS = 8000;

/** A bigger `trajectory_json` is refused before it is parsed: parsing would hold several copies of it. */
const MAX_LISTED_TESTS = 120;

export const MAX_TRAJECTORY_CHARS = 32 * 1024 * 1024;

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
  /** The caller withdrew (an MCP cancellation): checked before each tool output is offloaded (CANCELLED). */
  signal?: AbortSignal;
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
  /** hot_folded: outputs and pastes folded by size inside the hot window. */
  tiers: { hot: number; hot_folded: number; warm_folded: number; collapsed: number; digested: number };
  /** Every fact the digest carries, verbatim, with the turn it came from. */
  facts_kept: Fact[];
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
  const input = t.tool_input === undefined ? '' : `\n${typeof t.tool_input === 'string' ? t.tool_input : JSON.stringify(t.tool_input)}`;
  return `${t.role}${t.tool_name ? ` (${t.tool_name})` : ''}: ${t.content}${input}${t.tool_output ? `\n${t.tool_output}` : ''}`;
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
  /** The excerpt kept in context in the hot window; the warm window keeps less of it. */
  excerpt: Excerpt;
}

/** A big text of one turn folded to a node. */
interface Fold {
  folded: Folded;
  repeat: boolean;
}

/** Parts of a turn that are folded: its output, a paste in its message, big string fields of its tool_input. */
interface TurnFolds {
  output?: Fold & { field: 'tool_output' | 'content' };
  paste?: Fold & { split: PasteSplit };
  input?: Map<string, Fold>;
}

const isBig = (text: string, threshold: number) => text.length > MAX_INLINE_OUTPUT_CHARS || lineCount(text) > threshold;

function warmExcerpt(ex: Excerpt): Excerpt {
  const errors = ex.errors.slice(0, WARM_EXCERPT.maxErrors);
  return { head: [], tail: ex.tail.slice(-WARM_EXCERPT.tail), errors, summaries: ex.summaries, moreErrors: ex.moreErrors + ex.errors.length - errors.length, lines: ex.lines };
}

function foldText(f: Fold, hot: boolean): string {
  const ref = f.folded.ref;
  if (f.repeat && !hot) return `[k0maru: same failure as turn ${ref.turn} → ${ref.node_id}]`;
  const where = [ref.primary, ref.root ? `at ${ref.root}` : ''].filter(Boolean).join(' ');
  const codes = (ref.codes ?? []).filter((c) => c !== ref.primary && c !== 'build-failed');
  const what = [where, codes.length ? `also ${codes.slice(0, 8).join(', ')}` : '', ref.count > 1 ? `seen ${ref.count}×` : ''].filter(Boolean).join(' · ');
  return renderExcerpt(ref.node_id, hot ? f.folded.excerpt : warmExcerpt(f.folded.excerpt), what);
}

/**
 * Context GC in four deterministic tiers (documented in docs/economy.md):
 *  1. hot window — the last `hot_window` turns keep their prose; only outputs and pastes over `threshold` lines
 *     are folded (head, tail and every distinct error line stay); the most recent turn's own text is untouched;
 *  2. fold — big tool outputs, pastes and tool inputs in older turns go to offload nodes, replaced by a reference
 *     with their error lines;
 *  3. collapse — repeats of the same dump (same bytes, or same error code + root + tool) keep one reference and a count;
 *  4. digest — turns older than the warm window become one digest of verbatim facts (facts.ts, digest.ts).
 */
export async function gcSession(paths: Pick<VaultPaths, 'refsDir' | 'projectRoot'>, input: GcInput): Promise<GcResult> {
  if ((input.trajectory_json === undefined) === (input.trajectory === undefined)) {
    throw new K0Error('INVALID_ARGUMENT', 'gc needs exactly one of trajectory_json or trajectory');
  }
  if (input.trajectory_json !== undefined && input.trajectory_json.length > MAX_TRAJECTORY_CHARS) {
    throw new K0Error('FILE_TOO_LARGE', `trajectory_json is ${input.trajectory_json.length} characters; the limit is ${MAX_TRAJECTORY_CHARS} (offload the biggest tool outputs first, or GC the session in parts)`);
  }
  const traj = parseTrajectory(input.trajectory_json ?? input.trajectory);
  const opts = parseGcOptions({ threshold: input.threshold, hot_window: input.hot_window, warm_window: input.warm_window, context_window: input.context_window });
  const turns = traj.turns;
  const n = turns.length;
  const hotStart = Math.max(0, n - opts.hot_window);
  const defaultWarmStart = Math.max(0, hotStart - (opts.warm_window ?? opts.hot_window * 2));
  const known = new Set<string>(KNOWN_ROLES);
  const unknownRoles = turns.map((t, i) => ({ turn: i + 1, role: t.role })).filter((u) => !known.has(u.role));

  // Tiers 2 and 3 over every turn: fold big texts (by size, whatever their age), group repeats.
  const byHash = new Map<string, Folded>();
  const bySignature = new Map<string, Folded>();
  const folds = new Map<number, TurnFolds>();
  const shortRepeat = new Map<number, number>(); // turn index → first identical turn index
  const shortSeen = new Map<string, number>();
  const nodes: NodeRef[] = [];
  const fold = async (text: string, i: number, t: Turn, field: NodeRef['field']): Promise<Fold> => {
    const hash = createHash('sha256').update(text).digest('hex');
    const same = byHash.get(hash);
    if (same) {
      same.ref.count++;
      return { folded: same, repeat: true };
    }
    // Logs offloaded before a cancellation stay (each is whole and content-addressed: a retry reuses it).
    throwIfCancelled(input.signal, 'context GC');
    const r = await offloadLog(paths, { text, taskName: `gc-${traj.session_id}`, threshold: 0, source: 'gc', signal: input.signal });
    const p = r.analysis.primary;
    const excerpt = excerptOf(text, HOT_EXCERPT, addedTests);
    const ref: NodeRef = {
      node_id: r.nodeId!,
      turn: i + 1,
      tool_name: t.tool_name,
      about: aboutOf(t),
      lines: r.lines,
      primary: p?.code,
      root: formatLocation(p?.location) || undefined,
      message: p?.message ? p.message.slice(0, 300) : undefined,
      count: 1,
      codes: Object.keys(r.analysis.codeCounts),
      error_lines: excerpt.errors.map((e) => e.text),
      errors: distinctErrors(r.analysis),
      test_totals: excerpt.summaries,
      field,
    };
    const sig = p && field !== 'tool_input' ? `${t.tool_name ?? ''}|${p.code}|${ref.root ?? ''}` : undefined;
    const sameSig = sig ? bySignature.get(sig) : undefined;
    nodes.push(ref);
    if (sameSig) {
      // A re-run that failed the same way: the new raw log is stored (its node is listed), the context keeps one.
      sameSig.ref.count++;
      return { folded: { ref, excerpt }, repeat: true };
    }
    const folded = { ref, excerpt };
    byHash.set(hash, folded);
    if (sig) bySignature.set(sig, folded);
    return { folded, repeat: false };
  };
  // Tests the session adds anywhere: their status lines are kept in the excerpt of any test run.
  const addedTests = new Set(turns.flatMap((t) => testsWrittenBy(t.tool_name, t.tool_input)).slice(0, 500));
  for (let i = 0; i < n; i++) {
    const t = turns[i];
    if (!known.has(t.role) || (t as GcTurn).k0maru_gc) continue;
    const last = i === n - 1;
    const tf: TurnFolds = {};
    const out = outputOf(t);
    // The most recent turn's own text stays as it is; its tool output is folded like any other.
    if (out && !(last && out.field === 'content')) {
      if (isBig(out.text, opts.threshold)) tf.output = { ...(await fold(out.text, i, t, out.field)), field: out.field };
      else if (i < hotStart) {
        // Short outputs are only collapsed when repeated verbatim (a status line run 40 times).
        const hash = createHash('sha256').update(out.text).digest('hex');
        const first = shortSeen.get(hash);
        if (first !== undefined && lineCount(out.text) >= 2) shortRepeat.set(i, first);
        else if (first === undefined) shortSeen.set(hash, i);
      }
    }
    if (!last && (t.role === 'user' || t.role === 'assistant') && out?.field !== 'content') {
      const split = splitPaste(t.content, opts.threshold);
      if (split) tf.paste = { ...(await fold(split.paste, i, t, 'content')), split };
    }
    if (i < hotStart && t.tool_input && typeof t.tool_input === 'object' && !Array.isArray(t.tool_input)) {
      for (const [k, v] of Object.entries(t.tool_input as Record<string, unknown>)) {
        if (typeof v === 'string' && isBig(v, opts.threshold)) (tf.input ??= new Map()).set(k, await fold(v, i, t, 'tool_input'));
      }
    }
    if (tf.output || tf.paste || tf.input) folds.set(i, tf);
  }
  throwIfCancelled(input.signal, 'context GC'); // the rest runs without awaiting, ledger line included

  /** Tier 4 and the output for a given start of the warm window (the folds above are reused). */
  const assemble = (warmStart: number) => {
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
      const tf = folds.get(i);
      const isCall = t.tool_input !== undefined || t.tool_output !== undefined || t.role === 'tool';
      const prose = tf?.paste ? `${tf.paste.split.before}\n${tf.paste.split.after}` : out?.field === 'content' ? '' : t.content;
      if (tf?.paste) facts.addNodeErrors(tf.paste.folded.ref, turnNo);
      if (prose) {
        facts.scanText(prose, turnNo);
        // An assistant turn that also carries a tool call still says what it decided; a tool turn's text is the
        // call's description, a user turn with a tool result is the result.
        if (t.role === 'user' && !isCall) facts.book.userProse(prose, turnNo);
        else if (t.role === 'assistant') facts.book.assistantProse(prose, turnNo);
      }
      const node = tf?.output?.folded.ref.node_id;
      if (isCall) facts.book.toolCall(t.tool_name, t.tool_input, t.content, out?.text, turnNo, node);
      if (out && tf?.output) facts.addNodeErrors(tf.output.folded.ref, turnNo);
      else if (out) {
        facts.scanText(out.text, turnNo);
        for (const l of out.text.split('\n').filter(isErrorLine).slice(0, 4)) facts.book.add('error', turnNo, l.trim().slice(0, 300));
      }
    }
    for (const ref of nodes) if (ref.turn <= warmStart) facts.nodes.push(ref);
    const digest = warmStart > 0 ? facts.render(traj.session_id, 1, warmStart) : '';

    const outTurns: GcTurn[] = [];
    // Kept turns first: an earlier digest covers older history than the new one.
    outTurns.push(...kept);
    if (digest) outTurns.push({ role: 'system', content: digest, k0maru_gc: { tier: 4, digest_of: [1, warmStart] } });
    let warmFolded = 0;
    let hotFolded = 0;
    let collapsed = 0;
    for (let i = warmStart; i < n; i++) {
      const t = turns[i];
      const hot = i >= hotStart;
      const tf = folds.get(i);
      const firstShort = shortRepeat.get(i);
      if (!known.has(t.role) || (!tf && firstShort === undefined)) {
        outTurns.push(t);
        continue;
      }
      const next: GcTurn = { ...t };
      let meta: GcMeta | undefined;
      if (tf?.output) {
        next[tf.output.field] = foldText(tf.output, hot);
        const ref = tf.output.folded.ref;
        if (tf.output.repeat && !hot) {
          collapsed++;
          meta = { tier: 3, node_id: ref.node_id, same_as_turn: ref.turn };
        } else {
          if (hot) hotFolded++;
          else warmFolded++;
          meta = { tier: 2, node_id: ref.node_id, seen: ref.count };
        }
      } else if (firstShort !== undefined) {
        const out = outputOf(t)!;
        collapsed++;
        next[out.field] = `[k0maru: identical output to turn ${firstShort + 1}]`;
        meta = { tier: 3, same_as_turn: firstShort + 1 };
      }
      if (tf?.paste) {
        const { before, after } = tf.paste.split;
        next.content = [before, foldText(tf.paste, hot), after].filter(Boolean).join('\n');
        if (hot) hotFolded++;
        else warmFolded++;
        meta ??= { tier: 2, node_id: tf.paste.folded.ref.node_id, seen: tf.paste.folded.ref.count };
      }
      if (tf?.input) {
        const ti = { ...(t.tool_input as Record<string, unknown>) };
        for (const [k, f] of tf.input) {
          // The names of the tests a written file defines stay: "tests added" must survive the fold.
          const names = testNamesIn(String((t.tool_input as Record<string, unknown>)[k]));
          const list = names.length ? `; defines tests: ${names.slice(0, MAX_LISTED_TESTS).join(', ')}${names.length > MAX_LISTED_TESTS ? ` (+${names.length - MAX_LISTED_TESTS})` : ''}` : '';
          ti[k] = `[k0maru: ${f.folded.ref.lines} lines → ${f.folded.ref.node_id}${list}; inspect_log_node for the full text]`;
        }
        next.tool_input = ti;
        warmFolded++;
        meta ??= { tier: 2, node_id: [...tf.input.values()][0].folded.ref.node_id, seen: 1 };
      }
      next.k0maru_gc = meta;
      outTurns.push(next);
    }
    const tokensAfter = outTurns.reduce((s, t) => s + countTokensSafe(turnText(t)), 0);
    return { outTurns, digest, digested, warmFolded, hotFolded, collapsed, tokensAfter, facts: digest ? facts.kept() : [] };
  };

  const tokensBefore = turns.reduce((s, t) => s + countTokensSafe(turnText(t)), 0);
  let built = assemble(defaultWarmStart);
  // Above the Smart-Zone with the default warm window: digest the warm turns too (the hot window stays untouched).
  let tightened = false;
  if (built.tokensAfter / opts.context_window > SMART_ZONE.max && opts.warm_window === undefined && defaultWarmStart < hotStart) {
    built = assemble(hotStart);
    tightened = true;
  }
  const { outTurns, digest, digested, warmFolded, hotFolded, collapsed, tokensAfter, facts } = built;
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
      tiers: { hot: n - hotStart, hot_folded: hotFolded, warm_folded: warmFolded, collapsed, digested },
      facts_kept: facts,
      tightened,
      nodes_created: nodes,
      unknown_roles: unknownRoles,
    },
  };
}
