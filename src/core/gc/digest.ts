/**
 * Tier 4 of the GC: the old turns are replaced by one digest of facts (see facts.ts) — requests and constraints
 * quoted verbatim, rejected approaches, errors with code, `file:line` and node, the commands really run with
 * their outcome, files changed, tests and their status, decisions, the commit, side findings — each with the
 * turn it came from. Deterministic: the same trajectory always gives the same digest.
 */
import { commandOf, FactBook, type Fact } from './facts';
import { formatLocation, type Location, type LogAnalysis } from '../offload';
import type { Turn } from './schema';

const EXT =
  'rs|ts|tsx|mts|cts|js|jsx|mjs|cjs|py|pyi|go|c|cc|cpp|cxx|h|hh|hpp|java|kt|rb|php|cs|swift|json|jsonl|toml|yaml|yml|md|sql|sh|css|scss|html|lock|cfg|ini|txt|proto|log|mod|sum|xml|gradle';
// A path: optional ./ ../ ~ or / prefix, folders, then a name with a known extension; not part of a URL scheme.
const PATH_RE = new RegExp(`(?<![\\w@/.:+-])((?:~|\\.{1,2})?/?(?:[\\w@+-][\\w.@+-]*/)*[\\w+-][\\w.+-]*\\.(?:${EXT}))(?::(\\d+))?(?![\\w/])`, 'g');
const CODE_RES: RegExp[] = [
  /\bE\d{4}\b/g, // rustc
  /\bTS\d{4,5}\b/g, // tsc
  /\b[A-Z][A-Za-z]*(?:Error|Exception)\b/g, // Python / JS exception types, BorrowMutError
  /\bERR_[A-Z_]{3,}\b/g, // Node error codes
  /\b(?:heap-use-after-free|heap-buffer-overflow|stack-buffer-overflow|stack-use-after-return|global-buffer-overflow|double-free|use-after-poison|memory leaks?)\b/g,
  /\ball goroutines are asleep - deadlock!?/g,
  /\bassignment to entry in nil map\b/g,
  /\binvalid memory address or nil pointer dereference\b/g,
];
/** A safety bound only: the patterns are linear (path starts cannot overlap), tool outputs this big are folded. */
const MAX_SCANNED_CHARS = 8 * 1024 * 1024;
const MAX_FILES_MENTIONED = 60;
const MAX_ERROR_LINES_PER_NODE = 8;
const MAX_NODE_ERRORS = 8;

export interface NodeRef {
  node_id: string;
  turn: number;
  tool_name?: string;
  /** The command that printed it, or the file it shows. */
  about?: string;
  lines: number;
  primary?: string;
  root?: string;
  /** The primary error's message, verbatim. */
  message?: string;
  count: number;
  /** Every code the analyzer saw in the output (the digest lists them with the node). */
  codes?: string[];
  /** Distinct error lines of the raw text, verbatim. */
  error_lines?: string[];
  /** Distinct analysed errors, `CODE message at file:line` (chains included). */
  errors?: string[];
  /** Test-run totals seen in the output. */
  test_totals?: string[];
  /** Which part of the turn was folded. */
  field?: 'tool_output' | 'content' | 'tool_input';
}

/**
 * Each distinct error the analyser found (chains included), as `CODE message at file:line`; the same code and
 * message again in the same file (96 × E0308 in a generated table) is one entry with a count.
 */
export function distinctErrors(a: LogAnalysis): string[] {
  const seen = new Map<string, { text: string; more: number }>();
  const add = (code: string, message: string, loc: Location | undefined) => {
    const key = `${code}|${message}|${loc?.file ?? ''}`;
    const known = seen.get(key);
    if (known) return void known.more++;
    if (seen.size >= MAX_NODE_ERRORS) return;
    const m = message.startsWith(code) ? message : `${code} ${message}`;
    const where = formatLocation(loc);
    seen.set(key, { text: `${m.slice(0, 240)}${where ? ` at ${where}` : ''}`, more: 0 });
  };
  const all = a.primary && !a.errors.includes(a.primary) ? [a.primary, ...a.errors] : a.errors;
  for (const e of all) {
    add(e.code, e.message, e.location);
    for (const c of (e.chain ?? []) as unknown[]) {
      if (c && typeof c === 'object' && 'code' in c) {
        const link = c as { code: string; message?: string; location?: Location };
        add(link.code, link.message ?? '', link.location);
      }
    }
  }
  // The analyser keeps a bounded list: say "more", not a count that could be short.
  return [...seen.values()].map((v) => (v.more ? `${v.text} (and more in that file)` : v.text));
}

/** What a folded output came from, for the node table: the command run or the file read. */
export function aboutOf(t: Turn): string | undefined {
  const cmd = commandOf(t.tool_name, t.tool_input, t.content);
  if (cmd) return cmd.length > 120 ? `${cmd.slice(0, 119)}…` : cmd;
  const o = t.tool_input && typeof t.tool_input === 'object' ? (t.tool_input as Record<string, unknown>) : undefined;
  const path = o?.file_path ?? o?.path;
  return typeof path === 'string' ? path : undefined;
}

export class FactCollector {
  readonly book = new FactBook();
  readonly mentioned = new Map<string, number>();
  readonly codes = new Map<string, { turn: number; count: number; root?: string; node?: string }>();
  readonly nodes: NodeRef[] = [];
  /** Node ids mentioned in old turns (references left by an earlier GC or offload). */
  readonly mentionedNodes = new Map<string, number>();

  /** Paths, codes and node ids in prose or a short output. Big texts are folded into nodes before this. */
  scanText(full: string, turn: number): void {
    const text = full.length > MAX_SCANNED_CHARS ? full.slice(0, MAX_SCANNED_CHARS) : full;
    for (const m of text.matchAll(PATH_RE)) {
      const p = m[1];
      // Version numbers (1.2.3), library names (Node.js, Vue.js) and JS member chains (Module._extensions..js).
      if (/^\d+(\.\d+)+$/.test(p) || p.length > 200 || /^[A-Z][a-z]+\.js$/.test(p) || /[^./]\.\./.test(p)) continue;
      if (!this.mentioned.has(p)) this.mentioned.set(p, turn);
    }
    for (const re of CODE_RES) for (const m of text.matchAll(re)) this.addCode(m[0], turn);
    for (const m of text.matchAll(/\bnode_[0-9a-f]{8}\b/g)) if (!this.mentionedNodes.has(m[0])) this.mentionedNodes.set(m[0], turn);
  }

  addCode(code: string, turn: number, root?: string, node?: string): void {
    const c = this.codes.get(code);
    if (c) {
      c.count++;
      c.root ??= root;
      c.node ??= node;
    } else this.codes.set(code, { turn, count: 1, root, node });
  }

  /** A folded output: its errors become facts that point at the node. */
  addNodeErrors(ref: NodeRef, turn: number): void {
    for (const e of ref.errors ?? []) this.book.add('error', turn, e, ref.node_id);
    for (const l of (ref.error_lines ?? []).slice(0, MAX_ERROR_LINES_PER_NODE)) {
      // An error line that only repeats an analysed entry (same location, or same message) adds nothing.
      const loc = l.match(/\S+:\d+(?::\d+)?/)?.[0];
      const msg = l.replace(/^error(?:\[\w+\])?:\s*/, '');
      if ((ref.errors ?? []).some((e) => (loc && e.includes(loc)) || e.includes(msg))) continue;
      this.book.add('error', turn, l, ref.node_id);
    }
    for (const l of ref.test_totals ?? []) this.book.add('test', turn, l, ref.node_id);
    if (ref.primary) this.addCode(ref.primary, turn, ref.root, ref.node_id);
    for (const c of ref.codes ?? []) if (c !== ref.primary && c !== 'build-failed') this.addCode(c, turn, undefined, ref.node_id);
  }

  /** Every fact the digest carries, in turn order: the report lists them. */
  kept(): Fact[] {
    const facts = [...this.book.facts];
    const files = new Set(facts.filter((f) => f.kind === 'file').map((f) => f.text));
    for (const [p, t] of this.mentioned) if (!files.has(p) && facts.length < 10_000) facts.push({ kind: 'file', turn: t, text: p });
    return facts.sort((a, b) => a.turn - b.turn);
  }

  render(sessionId: string, from: number, to: number): string {
    const out = [`[k0maru GC digest — session ${sessionId}, turns ${from}–${to}; facts verbatim, tN = turn]`];
    const of = (k: Fact['kind']) => this.book.facts.filter((f) => f.kind === k);
    const section = (title: string, facts: Fact[], fmt: (f: Fact) => string) => {
      if (!facts.length) return;
      out.push(title);
      for (const f of facts) out.push(`- ${fmt(f)}`);
    };
    const node = (f: Fact) => (f.node ? ` → ${f.node}` : '');
    section('User requests:', of('request'), (f) => `t${f.turn}: "${f.text}"`);
    section('User constraints:', of('constraint'), (f) => `t${f.turn}: "${f.text}"`);
    section('Rejected approaches:', of('rejected'), (f) => `t${f.turn}: ${f.text}`);
    section('Errors:', of('error'), (f) => `t${f.turn}: ${f.text}${node(f)}`);
    const codesOnly = [...this.codes].filter(([code]) => !this.book.facts.some((f) => f.kind === 'error' && f.text.includes(code)));
    if (codesOnly.length) {
      out.push(`Error codes: ${codesOnly.map(([code, c]) => [code, c.root ? `at ${c.root}` : '', c.node ?? '', c.count > 1 ? `×${c.count}` : '', `t${c.turn}`].filter(Boolean).join(' ')).join('; ')}`);
    }
    section('Commands run (tool_input):', this.book.commandFacts(), (f) => {
      const turns = f.turns && f.turns.length > 1 ? `t${f.turns.join(',t')}` : `t${f.turn}`;
      return `${turns}: \`${f.text}\`${f.outcome ? ` ⇒ ${f.outcome}` : ''}${node(f)}`;
    });
    const changed = of('file');
    if (changed.length) out.push(`Files changed: ${changed.map((f) => `${f.text} (t${f.turn})`).join(', ')}`);
    const read = [...new Map(this.book.filesRead.map((r) => [r.path, r.turn])).entries()].filter(([p]) => !changed.some((f) => f.text === p));
    if (read.length) out.push(`Files read: ${read.map(([p, t]) => `${p} (t${t})`).join(', ')}`);
    section('Tests (added, and the status lines of test runs):', of('test'), (f) => `t${f.turn}: ${f.text}${node(f)}`);
    const decisions = of('decision');
    section('Decisions:', decisions.slice(0, -1), (f) => `t${f.turn}: ${f.text}`);
    if (decisions.length) out.push(`Final decision: t${decisions[decisions.length - 1].turn}: ${decisions[decisions.length - 1].text}`);
    const commits = of('commit');
    out.push(commits.length ? `Committed: ${commits.map((f) => `t${f.turn} ${f.text}`).join('; ')}` : 'Committed: no git commit in these turns');
    section('Side findings:', of('side'), (f) => `t${f.turn}: ${f.text}`);
    const mentioned = [...this.mentioned.keys()].filter((p) => !changed.some((f) => f.text === p) && !read.some(([r]) => r === p));
    if (mentioned.length) out.push(`Files mentioned: ${mentioned.slice(0, MAX_FILES_MENTIONED).join(', ')}${mentioned.length > MAX_FILES_MENTIONED ? ` (+${mentioned.length - MAX_FILES_MENTIONED} more)` : ''}`);
    if (this.nodes.length) {
      out.push('Offloaded outputs (inspect_log_node for the raw text):');
      for (const n of this.nodes) {
        const what = [n.primary, n.root ? `at ${n.root}` : ''].filter(Boolean).join(' ');
        out.push(`- ${n.node_id} t${n.turn}${n.tool_name ? ` ${n.tool_name}` : ''}${n.about ? ` \`${n.about}\`` : ''}: ${n.lines} lines${what ? `, ${what}` : ''}${n.count > 1 ? ` (×${n.count})` : ''}`);
      }
    }
    const earlier = [...this.mentionedNodes].filter(([id]) => !this.nodes.some((n) => n.node_id === id));
    if (earlier.length) out.push(`Earlier offload nodes: ${earlier.map(([id, t]) => `${id} (t${t})`).join(', ')}`);
    return out.join('\n');
  }
}
