/**
 * The facts a resumed agent needs, taken from the turns deterministically and never paraphrased: every fact is
 * a verbatim sentence, line or field of the turn it came from, and keeps that turn's number. Sentences are
 * classified by cue words (constraint, rejected approach, decision, side finding); commands and files come from
 * `tool_input` (what was actually run / written), not from the assistant's narration of it.
 */

export type FactKind = 'request' | 'constraint' | 'rejected' | 'decision' | 'side' | 'error' | 'command' | 'file' | 'test' | 'commit';

export interface Fact {
  kind: FactKind;
  turn: number;
  text: string;
  /** The offload node that holds the raw output this fact was read from. */
  node?: string;
  /** Commands: how many times, and on which turns, it was run; the last output line (its outcome). */
  turns?: number[];
  outcome?: string;
}

const CONSTRAINT_RE =
  /\b(?:must(?:n't| not)?|never|don'?t|do not|does not|only|without|keep|stay|avoid|make sure|should(?:n't| not)|not allowed|no (?:new |more )?[a-z]+|cannot|can'?t|has no|at most|at least|instead)\b/i;
const REJECT_RE =
  /\b(?:reject(?:ed)?|tried|didn'?t work|did not work|doesn'?t work|won'?t work|would not|wouldn'?t|would (?:hide|silence|break|just)|ruled out|not an option|abandon(?:ed)?|revert(?:ed)?|gave up|considered|is wrong|was wrong|dead end|no good)\b/i;
const DECISION_RE =
  /\b(?:decided|decision|we will|we'll|let's|let us|going with|go with|chose|choose|opted|agreed|switch(?:ed)? to|from now on|never use|always use|ADR[- ]\d+|plan:)/i;
const SIDE_RE =
  /\b(?:side (?:note|finding)|unrelated|also noticed|noticed that|separately|by the way|FYI|TODO|follow[- ]up|out of scope|left (?:it|as is|alone)|worth (?:telling|noting|a look))\b/i;

/** "Thanks.", "Ok, great!": acknowledgements carry no request. */
const ACK_RE = /^(?:(?:ok(?:ay)?|good|great|thanks?(?: you)?|perfect|nice|cool|yes|yep|sure|lgtm)[,.!\s]*)+$/i;
const SHELL_TOOLS = /^(?:bash|sh|shell|zsh|terminal|run|run_command|run_terminal_cmd|exec|execute|exec_command|cmd|command|powershell|local_shell|shell_command)$/i;
const EDIT_TOOLS = /(?:write|edit|create|patch|replace|insert|apply|notebook)/i;
const READ_TOOLS = /^(?:read|view|open|cat|read_file|view_file)$/i;
const TEST_CMD = /\b(?:test|tests|pytest|ctest|jest|vitest|mocha|unittest|nextest|spec|tox)\b/;
const TEST_SUMMARY =
  /(?:\b\d+ (?:passed|failed|xfailed|errors?)\b|test result:|^ok\s+\S|^FAIL\b|^PASS\b|--- (?:PASS|FAIL):|tests? passed|^# (?:pass|fail|tests) \d+|^Tests:|^ℹ (?:pass|fail) \d+)/;
const TEST_NAME_RES = [
  /#\[test\][\s\S]{0,80}?fn\s+(\w+)/g, // Rust
  /\bdef\s+(test_\w+)/g, // pytest / unittest
  /\bfunc\s+(Test\w+|Fuzz\w+|Benchmark\w+)\s*\(/g, // Go
  /\b(?:test|it|describe)\s*\(\s*(['"`])([^'"`\n]{1,120})\1/g, // node:test, jest, vitest, mocha
  /\bTEST(?:_F)?\s*\(\s*(\w+\s*,\s*\w+)\s*\)/g, // GoogleTest
];

const MAX_SENTENCE = 320;
const MAX_COMMAND = 400;
const MAX_OUTCOME = 200;
const MAX_PATCH_SCAN = 4 * 1024 * 1024;

/** A long sentence keeps a verbatim window around its cue words rather than its (possibly unrelated) start. */
function around(s: string, re: RegExp | undefined): string {
  if (s.length <= MAX_SENTENCE) return s;
  const at = re ? Math.max(0, s.search(re) - 60) : 0;
  return `${at > 0 ? '…' : ''}${s.slice(at, at + MAX_SENTENCE - 2)}…`;
}

/** Sentences of a prose text, verbatim (markdown bullets and quote marks at the start dropped). */
export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const para of text.split(/\n+/)) {
    for (const raw of para.split(/(?<=[.!?])\s+(?=[A-Z`"'(*])/)) {
      const s = raw.replace(/^[-*>•\s]+/, '').trim();
      if (s.length >= 4) out.push(s);
    }
  }
  return out;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v : undefined;
}

/** The command a shell tool call ran: `tool_input.command` (string or argv array), else the seed's `content`. */
export function commandOf(toolName: string | undefined, toolInput: unknown, content: string): string | undefined {
  // Some exporters keep the call's arguments as JSON text.
  if (typeof toolInput === 'string' && /^\s*\{/.test(toolInput)) {
    try {
      toolInput = JSON.parse(toolInput);
    } catch {
      // not JSON after all: the string itself is the input
    }
  }
  if (toolInput && typeof toolInput === 'object') {
    const o = toolInput as Record<string, unknown>;
    const c = o.command ?? o.cmd ?? o.script;
    if (Array.isArray(c) && c.every((x) => typeof x === 'string')) return c.join(' ');
    if (str(c)) return str(c);
    return undefined;
  }
  if (typeof toolInput === 'string' && toolName && SHELL_TOOLS.test(toolName)) return str(toolInput);
  if (toolName && SHELL_TOOLS.test(toolName)) return content.split('\n').find((l) => l.trim())?.replace(/^\s*\$\s*/, '');
  return undefined;
}

function filePathOf(toolInput: unknown): string | undefined {
  if (!toolInput || typeof toolInput !== 'object') return undefined;
  const o = toolInput as Record<string, unknown>;
  return str(o.file_path) ?? str(o.path) ?? str(o.filename) ?? str(o.notebook_path);
}

/** Text written by an edit call (new file content or replacement), to look for added tests. */
function writtenTextOf(toolInput: unknown): string {
  if (!toolInput || typeof toolInput !== 'object') return '';
  const o = toolInput as Record<string, unknown>;
  const parts = [o.content, o.new_string, o.new_str, o.file_text, o.patch, o.diff];
  if (Array.isArray(o.edits)) for (const e of o.edits) if (e && typeof e === 'object') parts.push((e as Record<string, unknown>).new_string);
  return parts.filter((p): p is string => typeof p === 'string').join('\n');
}

const clipLine = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

export class FactBook {
  readonly facts: Fact[] = [];
  private readonly seen = new Set<string>();
  private readonly commands = new Map<string, Fact>();
  readonly filesRead: { path: string; turn: number }[] = [];
  private readonly addedTests = new Set<string>();

  add(kind: FactKind, turn: number, text: string, node?: string): Fact | undefined {
    const key = `${kind}\u0000${text}`;
    if (this.seen.has(key)) return undefined;
    this.seen.add(key);
    const f: Fact = { kind, turn, text, ...(node ? { node } : {}) };
    this.facts.push(f);
    return f;
  }

  /** A user message (the paste already cut out): each sentence verbatim, constraints marked as such. */
  userProse(text: string, turn: number): void {
    for (const s of sentences(text)) {
      if (ACK_RE.test(s)) continue;
      const c = CONSTRAINT_RE.test(s);
      this.add(c ? 'constraint' : 'request', turn, around(s, c ? CONSTRAINT_RE : undefined));
    }
  }

  /** Assistant prose: only the sentences that carry a rejected approach, a decision or a side finding. */
  assistantProse(text: string, turn: number): void {
    const ss = sentences(text);
    for (let i = 0; i < ss.length; i++) {
      const s = ss[i];
      if (REJECT_RE.test(s)) {
        // "Option A: clone it. Rejected: …" — a bare cue needs its neighbour to say what and why.
        const withWhy = s.length < 60 && ss[i + 1] ? `${s} ${ss[i + 1]}` : s.length < 60 && i > 0 ? `${ss[i - 1]} ${s}` : s;
        this.add('rejected', turn, around(withWhy, REJECT_RE));
      } else if (SIDE_RE.test(s)) this.add('side', turn, around(s, SIDE_RE));
      else if (DECISION_RE.test(s)) this.add('decision', turn, around(s, DECISION_RE));
    }
  }

  /** A tool call: the command it ran, the file it wrote, the tests it added, a commit. */
  toolCall(toolName: string | undefined, toolInput: unknown, content: string, output: string | undefined, turn: number, node?: string): void {
    const cmd = commandOf(toolName, toolInput, content);
    if (cmd) {
      const text = clipLine(cmd.trim(), MAX_COMMAND);
      const outcome = output ? lastLine(output) : undefined;
      const known = this.commands.get(text);
      if (known) {
        known.turns!.push(turn);
        known.outcome = outcome;
        if (node) known.node = node;
      } else {
        const f = this.add('command', turn, text, node);
        if (f) {
          f.turns = [turn];
          f.outcome = outcome;
          this.commands.set(text, f);
        }
      }
      if (TEST_CMD.test(cmd) && output) {
        for (const l of testSummary(output)) this.add('test', turn, l, node);
        // The status of each test this session added, as the runner printed it.
        if (this.addedTests.size) {
          for (const raw of output.split('\n')) {
            const l = raw.trim();
            if (l.length > 240 || !/\b(?:ok|PASS(?:ED)?|FAIL(?:ED)?|passed|failed|not ok|✔|✖)\b/.test(l)) continue;
            for (const name of this.addedTests) if (l.includes(name)) this.add('test', turn, l, node);
          }
        }
      }
      if (/\bgit\s+(?:-c\s+\S+\s+)*commit\b/.test(cmd) && output) {
        const line = output.split('\n').find((l) => /^\[[^\]]+ [0-9a-f]{7,}\]/.test(l.trim()));
        if (line) this.add('commit', turn, line.trim());
      }
      for (const m of cmd.matchAll(/\bsed\s+-i\S*\s+(?:-E\s+)?(?:'[^']*'|"[^"]*")\s+(\S+)/g)) this.add('file', turn, m[1]);
      return;
    }
    // apply_patch / unified diffs name the files they change inside the patch text.
    for (const v of toolInput && typeof toolInput === 'object' ? Object.values(toolInput as Record<string, unknown>) : [toolInput]) {
      if (typeof v !== 'string' || v.length > MAX_PATCH_SCAN) continue;
      for (const m of v.matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\+\+\+ b\/(.+)$/gm)) this.add('file', turn, (m[1] ?? m[2]).trim());
    }
    const path = filePathOf(toolInput);
    if (!path) return;
    if (toolName && EDIT_TOOLS.test(toolName)) {
      this.add('file', turn, path);
      if (TEST_FILE.test(path)) {
        const written = writtenTextOf(toolInput);
        let named = 0;
        for (const name of testNamesIn(written)) {
          this.addedTests.add(name);
          if (this.add('test', turn, name)) named++;
        }
        // A framework-less C/C++ test: the added assertions are the tests.
        if (!named) for (const l of written.split('\n').filter((x) => /^\s*(?:assert|ASSERT_|EXPECT_|CHECK)/.test(x)).slice(0, 4)) this.add('test', turn, l.trim());
      }
    } else if (toolName && READ_TOOLS.test(toolName)) this.filesRead.push({ path, turn });
  }

  /** The last command's facts: the outcomes of reruns replace earlier ones. */
  commandFacts(): Fact[] {
    return [...this.commands.values()];
  }
}

const TEST_FILE = /(?:^|[/_.-])(?:tests?|specs?)(?:[/_.-]|$)|_test\.|\.test\.|\.spec\./i;

/** The tests an edit call adds: names defined in what it writes to a test file. */
export function testsWrittenBy(toolName: string | undefined, toolInput: unknown): string[] {
  const path = filePathOf(toolInput);
  if (!path || !toolName || !EDIT_TOOLS.test(toolName) || !TEST_FILE.test(path)) return [];
  return testNamesIn(writtenTextOf(toolInput));
}

/** Names of the tests a source text defines (Rust, pytest, Go, node:test / jest / vitest / mocha, GoogleTest). */
export function testNamesIn(text: string): string[] {
  const names: string[] = [];
  for (const re of TEST_NAME_RES) for (const m of text.matchAll(re)) if (!names.includes(m[m.length - 1])) names.push(m[m.length - 1]);
  return names;
}

function lastLine(output: string): string | undefined {
  const lines = output.split('\n');
  for (let i = lines.length - 1; i >= 0 && i >= lines.length - 50; i--) {
    const l = lines[i].replace(/\x1b\[[0-9;]*m/g, '').trim();
    if (l) return clipLine(l, MAX_OUTCOME);
  }
  return undefined;
}

/** The summary lines of a test run (the last three distinct ones: totals come last). */
function testSummary(output: string): string[] {
  const hits: string[] = [];
  const lines = output.split('\n');
  for (const raw of lines) {
    const l = raw.replace(/\x1b\[[0-9;]*m/g, '').trim();
    if (l.length <= 200 && TEST_SUMMARY.test(l) && !/--- (?:PASS|FAIL): \S+\//.test(l)) hits.push(l.replace(/^=+\s*|\s*=+$/g, ''));
  }
  return [...new Set(hits)].slice(-3);
}
