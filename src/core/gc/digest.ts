/**
 * Tier 4 of the GC: old turns are replaced by a digest of the facts an agent needs to keep working — every file
 * path, error code, decision and command, with the offload nodes that hold the raw outputs. Extraction is
 * regex-based and deterministic: the same trajectory always gives the same digest.
 */

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
const DECISION_RE =
  /\b(?:decided|decision|we will|we'll|let's|let us|going with|go with|chose|choose|opted|agreed|switch(?:ed)? to|instead of|from now on|must not|never use|always use|ADR[- ]\d+|plan:)/i;
const SHELL_TOOLS = /^(?:bash|sh|shell|zsh|terminal|run|run_command|run_terminal_cmd|exec|execute|cmd|command|powershell)$/i;
const CLI_SPAN = /`((?:cargo|npm|npx|pnpm|yarn|node|python3?|pytest|go (?:run|build|test|vet|mod|get|install)|make|cmake|git|tsc|g\+\+|gcc|clang|rustc|docker|kubectl|k0maru|ls|cat|grep|rg|sed)\b[^`\n]{0,200})`/g;
const DOLLAR_LINE = /^\s*\$ (.{1,300})$/gm;

const MAX_DECISION_CHARS = 240;
/** A safety bound only: the patterns are linear (path starts cannot overlap), tool outputs this big are folded. */
const MAX_SCANNED_CHARS = 8 * 1024 * 1024;
const MAX_REQUEST_CHARS = 200;

export interface NodeRef {
  node_id: string;
  turn: number;
  tool_name?: string;
  lines: number;
  primary?: string;
  root?: string;
  count: number;
  /** Every code the analyzer saw in the output (the digest lists them with the node). */
  codes?: string[];
}

export class FactCollector {
  readonly files = new Map<string, number>();
  readonly codes = new Map<string, { turn: number; count: number; root?: string; node?: string }>();
  readonly decisions: { turn: number; role: string; text: string }[] = [];
  readonly commands = new Map<string, { turn: number; count: number }>();
  readonly requests: { turn: number; text: string }[] = [];
  readonly nodes: NodeRef[] = [];
  /** Node ids mentioned in old turns (references left by an earlier GC or offload). */
  readonly mentionedNodes = new Map<string, number>();

  /** Paths and codes in any text (content, short tool outputs). Big texts are folded into nodes before this. */
  scanText(full: string, turn: number): void {
    const text = full.length > MAX_SCANNED_CHARS ? full.slice(0, MAX_SCANNED_CHARS) : full;
    for (const m of text.matchAll(PATH_RE)) {
      const p = m[1];
      // Version numbers (1.2.3), library names (Node.js, Vue.js) and JS member chains (Module._extensions..js).
      if (/^\d+(\.\d+)+$/.test(p) || p.length > 200 || /^[A-Z][a-z]+\.js$/.test(p) || /[^./]\.\./.test(p)) continue;
      if (!this.files.has(p)) this.files.set(p, turn);
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

  scanDecisions(text: string, turn: number, role: string): void {
    for (const raw of text.split(/\n+|(?<=[.!?])\s+(?=[A-Z])/)) {
      const s = raw.replace(/^[-*>\s]+/, '').trim();
      if (s.length < 8 || !DECISION_RE.test(s)) continue;
      // Long sentences keep a window around the decision words rather than their (possibly unrelated) start.
      const at = Math.max(0, (s.search(DECISION_RE) ?? 0) - 60);
      const text = s.length <= MAX_DECISION_CHARS ? s : `${at > 0 ? '…' : ''}${s.slice(at, at + MAX_DECISION_CHARS - 2)}…`;
      if (!this.decisions.some((d) => d.text === text)) this.decisions.push({ turn, role, text });
    }
  }

  scanCommands(text: string, turn: number, toolName?: string): void {
    const add = (cmd: string) => {
      const c = cmd.trim();
      if (!c) return;
      const e = this.commands.get(c);
      if (e) e.count++;
      else this.commands.set(c, { turn, count: 1 });
    };
    if (toolName && SHELL_TOOLS.test(toolName)) {
      const first = text.split('\n').find((l) => l.trim());
      if (first) add(first.replace(/^\s*\$\s*/, ''));
      return;
    }
    for (const m of text.matchAll(DOLLAR_LINE)) add(m[1]);
    for (const m of text.matchAll(CLI_SPAN)) add(m[1]);
  }

  addRequest(text: string, turn: number): void {
    const t = text.replace(/\s+/g, ' ').trim();
    if (t) this.requests.push({ turn, text: t.length > MAX_REQUEST_CHARS ? `${t.slice(0, MAX_REQUEST_CHARS - 1)}…` : t });
  }

  render(sessionId: string, from: number, to: number): string {
    const out = [`[k0maru GC digest — session ${sessionId}, turns ${from}–${to}]`];
    if (this.requests.length) {
      out.push('User requests:');
      for (const r of this.requests) out.push(`- t${r.turn}: ${r.text}`);
    }
    if (this.decisions.length) {
      out.push('Decisions:');
      for (const d of this.decisions) out.push(`- t${d.turn} ${d.role}: ${d.text}`);
    }
    if (this.codes.size) {
      out.push('Errors:');
      for (const [code, c] of this.codes) {
        const bits = [c.root ? `at ${c.root}` : '', c.node ?? '', c.count > 1 ? `×${c.count}` : '', `t${c.turn}`].filter(Boolean);
        out.push(`- ${code} ${bits.join(' ')}`);
      }
    }
    if (this.commands.size) {
      out.push('Commands run:');
      for (const [cmd, c] of this.commands) out.push(`- ${cmd}${c.count > 1 ? ` (×${c.count})` : ''}`);
    }
    if (this.files.size) out.push(`Files: ${[...this.files.keys()].join(', ')}`);
    if (this.nodes.length) {
      out.push("Offloaded outputs (inspect_log_node for the raw text):");
      for (const n of this.nodes) {
        const what = [n.primary, n.root ? `at ${n.root}` : ''].filter(Boolean).join(' ');
        out.push(`- ${n.node_id} t${n.turn}${n.tool_name ? ` ${n.tool_name}` : ''}: ${n.lines} lines${what ? `, ${what}` : ''}${n.count > 1 ? ` (×${n.count})` : ''}`);
      }
    }
    const earlier = [...this.mentionedNodes].filter(([id]) => !this.nodes.some((n) => n.node_id === id));
    if (earlier.length) out.push(`Earlier offload nodes: ${earlier.map(([id, t]) => `${id} (t${t})`).join(', ')}`);
    return out.join('\n');
  }
}
