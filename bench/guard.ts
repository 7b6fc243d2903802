// Living ADR Guard benchmark (`npx tsx bench/guard.ts`, writes bench/results/guard.json).
//  1. In-process: 100 rules × 1,000 added lines over 50 files (TS, Python, Go, Rust, SQL), diff text → violations,
//     p50/p95. Two diffs: a clean one and one with a handful of violations (so tree-sitter parses run).
//  2. Hostile inputs (issue 13 defect 10): `deny: /\s+$/` against 500 added lines of 1,999 spaces + `x`, and
//     worst cases for RE2's copy-per-call (a match on every line of a large diff, a match every character).
//  3. The whole `k0maru hook pre-commit` process (bundled dist/cli.mjs) on a 500-note vault with a staged change,
//     interleaved with bare `node -e 0` runs so both see the same machine load; the figure is the ratio of medians.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseUnifiedDiff } from '../src/core/guard/diffParser';
import { prepareRules, runRules } from '../src/core/guard/engine';
import { cpus, loadavg } from 'node:os';
import { parseAdrRules } from '../src/core/guard/ruleParser';
import { validateRegex } from '../src/core/guard/pattern';
import type { ChangedFile } from '../src/core/guard/types';
import { generateVault } from './lib/vaultGen';
import { median, percentile, round } from './lib/stats';

const EXT = ['ts', 'py', 'go', 'rs', 'sql'];

function ruleAdr(n: number): string {
  const items: string[] = [];
  for (let i = 0; i < n; i++) {
    // 60% literals, 40% regexes (most with a literal the prefilter can use, a few without), some scoped.
    if (i % 5 < 3) items.push(`- deny: \`forbidden_call_${i}(\` | because: use helper ${i}`);
    else if (i % 5 === 3) items.push(`- deny: /\\bbanned_${i}\\s*\\(/ | in: src/** | because: banned`);
    else if (i % 20 === 4) items.push(`- warn: /[A-Z]{12}\\d{6}/`);
    else items.push(`- warn: /legacy_api_${i}\\.(get|post)\\(/i | lang: ts, python`);
  }
  return `---\nstatus: accepted\n---\n# ADR-900: bench rules\n\n## Invariants\n\n${items.join('\n')}\n`;
}

function addedLine(ext: string, i: number, violate: boolean): string {
  // Candidates of four kinds: in a template literal that continues on the next line (only a tree-sitter parse can
  // tell; its substitution is code), in a one-line template substitution and in a plain string (the lexical fast
  // path tells; a call-shaped rule does not count in the string), and in plain code (the parse-free path).
  if (violate) {
    const k = (i - 5) / 100;
    if (k === 0) return `  const q${i} = \`id \${forbidden_call_0(1)} and`;
    if (k % 20 === 0) return `  const q${i} = \`id \${forbidden_call_0(1)}\`;`;
    if (k % 40 === 10) return `  const q${i} = run("forbidden_call_0(1)");`;
    return `  const v${i} = forbidden_call_0(${i}); // ok`;
  }
  switch (ext) {
    case 'ts': return `  const value${i} = computeSomething(arg${i}, "héllo wörld") + other; // note ${i}`;
    case 'py': return `    value_${i} = compute_something(arg_${i}, "héllo") + other  # note ${i}`;
    case 'go': return `\tvalue${i} := computeSomething(arg${i}, "héllo") + other // note ${i}`;
    case 'rs': return `    let value_${i} = compute_something(arg_${i}, "héllo") + other; // note ${i}`;
    default: return `  SELECT id, name FROM table_${i} WHERE k = ${i}; -- note ${i}`;
  }
}

function contextLine(ext: string, name: string): string {
  switch (ext) {
    case 'ts': return `  const ${name} = 1;`;
    case 'py': return `    ${name} = 1`;
    case 'go': return `\t${name} := 1`;
    case 'rs': return `    let ${name} = 1;`;
    default: return `  SELECT ${name} FROM t;`;
  }
}

function makeDiff(violations: number): string {
  const parts: string[] = [];
  let placed = 0;
  for (let f = 0; f < 50; f++) {
    const ext = EXT[f % EXT.length];
    const path = `src/mod${f}/file${f}.${ext}`;
    parts.push(`diff --git a/${path} b/${path}`, 'index 1111111..2222222 100644', `--- a/${path}`, `+++ b/${path}`);
    for (let h = 0; h < 2; h++) {
      const start = 10 + h * 40;
      parts.push(`@@ -${start},13 +${start},23 @@ fn ctx() {`);
      // Context lines are code of the file's language, as in a real diff (the parser then has nothing to recover from).
      for (let c = 0; c < 3; c++) parts.push(' ' + contextLine(ext, `head${h}_${c}`));
      parts.push('-removed forbidden_call_0(1)');
      parts.push('-removed line');
      for (let a = 0; a < 10; a++) {
        const violate = placed < violations && f % 10 === 0 && h === 0 && a === 5;
        if (violate) placed++;
        parts.push('+' + addedLine(ext, f * 100 + h * 10 + a, violate));
      }
      for (let c = 0; c < 8; c++) parts.push(' ' + contextLine(ext, `tail${h}_${c}`));
    }
  }
  return parts.join('\n') + '\n';
}

async function inProcess(diff: string, iterations: number) {
  const adr = parseAdrRules(ruleAdr(100), 'adr-900.md', validateRegex);
  if (adr.rules.length !== 100 || adr.diagnostics.length) throw new Error(`expected 100 rules, got ${adr.rules.length}`);
  const rules = prepareRules(adr.rules);
  // Content from the hunks (no disk): the same provider guardCheck uses when a file is not on disk.
  const content = (f: ChangedFile) => {
    let max = 0;
    for (const n of f.newSideLines.keys()) max = Math.max(max, n);
    const lines = new Array<string>(max).fill('');
    for (const [n, t] of f.newSideLines) lines[n - 1] = t;
    return lines;
  };
  const times: number[] = [];
  const cpu: number[] = [];
  let violations = 0;
  let added = 0;
  for (let i = 0; i < iterations + 20; i++) {
    const c0 = process.cpuUsage();
    const t = performance.now();
    const files = parseUnifiedDiff(diff);
    const v = await runRules(files, rules, content);
    const dt = performance.now() - t;
    const dc = process.cpuUsage(c0);
    if (i >= 20) {
      // the first runs load RE2 / tree-sitter and warm the JIT
      times.push(dt);
      cpu.push((dc.user + dc.system) / 1000);
    }
    violations = v.length;
    added = files.reduce((n, f) => n + f.added.length, 0);
  }
  return { addedLines: added, files: 50, rules: 100, violations, iterations, p50Ms: round(median(times), 3), p95Ms: round(percentile(times, 95), 3), maxMs: round(Math.max(...times), 3), cpuP50Ms: round(median(cpu), 3), cpuP95Ms: round(percentile(cpu, 95), 3) };
}

const hunkContent = (f: ChangedFile) => {
  let max = 0;
  for (const n of f.newSideLines.keys()) max = Math.max(max, n);
  const lines = new Array<string>(max).fill('');
  for (const [n, t] of f.newSideLines) lines[n - 1] = t;
  return lines;
};

async function hostile() {
  const file = (path: string, texts: string[]): ChangedFile => ({ path, status: 'added', binary: false, added: texts.map((text, i) => ({ line: i + 1, text })), newSideLines: new Map(texts.map((t, i) => [i + 1, t])) });
  const cases: { name: string; rule: string; lines: string[] }[] = [
    { name: 'deny /\\s+$/, 500 lines of 1,999 spaces + x', rule: '- deny: /\\s+$/', lines: Array.from({ length: 500 }, () => ' '.repeat(1999) + 'x') },
    { name: 'deny /(end|fin)$/ (RE2, no prefilter) matching every one of 20,000 lines', rule: '- deny: /(end|fin)$/ | anywhere', lines: Array.from({ length: 20000 }, (_, i) => `value ${i} end`) },
    { name: 'deny /(\\s|\\t)/ (RE2) on one 1,000,000-space line', rule: '- deny: /(\\s|\\t)/ | anywhere', lines: [' '.repeat(1_000_000)] },
    { name: 'deny /(\\s|\\t)/ (RE2) on 1,000 lines of 2,000 spaces', rule: '- deny: /(\\s|\\t)/ | anywhere', lines: Array.from({ length: 1000 }, () => ' '.repeat(2000)) },
    { name: 'deny /a.*b/ on 500 lines of 1,999 a + x', rule: '- deny: /a.*b/', lines: Array.from({ length: 500 }, () => 'a'.repeat(1999) + 'x') },
  ];
  const out: Record<string, { ms: number; violations: number }> = {};
  for (const c of cases) {
    const adr = parseAdrRules(`---\nstatus: accepted\n---\n# ADR-1\n\n## Invariants\n\n${c.rule}\n`, 'adr.md', validateRegex);
    const rules = prepareRules(adr.rules);
    const files = [file('src/a.ts', c.lines)];
    await runRules(files, rules, hunkContent); // warm-up (RE2 load, JIT)
    const times: number[] = [];
    let v = 0;
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      v = (await runRules(files, rules, hunkContent)).length;
      times.push(performance.now() - t);
    }
    out[c.name] = { ms: round(median(times), 1), violations: v };
  }
  return out;
}

function processBench(runs: number) {
  const cli = join(__dirname, '..', 'dist', 'cli.mjs');
  if (!existsSync(cli)) return { skipped: 'dist/cli.mjs missing: run `node esbuild.mjs` first' };
  const root = mkdtempSync(join(tmpdir(), 'k0guard-bench-'));
  try {
    const git = (...a: string[]) => execFileSync('git', a, { cwd: root, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    git('config', 'user.email', 'b@e');
    git('config', 'user.name', 'b');
    const notes = join(root, '.k0maru', 'wiki');
    generateVault(notes, 500);
    writeFileSync(join(notes, '02_Architecture', 'adr-900-bench.md'), ruleAdr(50));
    writeFileSync(join(root, '.gitignore'), '.k0maru/index.db*\n');
    for (let f = 0; f < 10; f++) {
      mkdirSync(join(root, 'src'), { recursive: true });
      writeFileSync(join(root, 'src', `f${f}.ts`), Array.from({ length: 50 }, (_, i) => `export const a${i} = ${i};`).join('\n') + '\n');
    }
    git('add', '-A');
    git('commit', '-qm', 'base');
    for (let f = 0; f < 10; f++) {
      writeFileSync(join(root, 'src', `f${f}.ts`), Array.from({ length: 60 }, (_, i) => addedLine('ts', i, false)).join('\n') + '\n');
    }
    git('add', '-A');
    const cpu: number[] = [];
    const run = (env: NodeJS.ProcessEnv = {}) => {
      // /usr/bin/time reports the process's own CPU seconds: on a shared machine wall time also counts waiting.
      const timed = existsSync('/usr/bin/time');
      const args = timed ? ['-f', 'K0CPU %U %S', process.execPath, cli, 'hook', 'pre-commit'] : [cli, 'hook', 'pre-commit'];
      const t = performance.now();
      const r = spawnSync(timed ? '/usr/bin/time' : process.execPath, args, { cwd: root, encoding: 'utf8', env: { ...process.env, ...env } });
      const dt = performance.now() - t;
      if (r.status !== 0) throw new Error(`hook failed (${r.status}): ${r.stderr}`);
      const m = /K0CPU ([\d.]+) ([\d.]+)/.exec(r.stderr);
      if (m) cpu.push((Number(m[1]) + Number(m[2])) * 1000);
      return dt;
    };
    const bare = () => {
      const t = performance.now();
      spawnSync(process.execPath, ['-e', '0']);
      return performance.now() - t;
    };
    const cold = run({ K0MARU_GUARD_CACHE: '1' }); // builds the guard_rules cache in .k0maru/index.db
    run(); // warm the page cache for the default path too
    cpu.length = 0;
    // Interleaved: hook, node -e 0, hook, … so a load spike on this shared machine hits both sides alike.
    const direct: number[] = [];
    const nodeOnly: number[] = [];
    for (let i = 0; i < runs; i++) {
      direct.push(run());
      nodeOnly.push(bare());
    }
    const directCpu = [...cpu];
    cpu.length = 0;
    const warm = Array.from({ length: Math.min(runs, 7) }, () => run({ K0MARU_GUARD_CACHE: '1' }));
    const warmCpu = [...cpu];
    const baseline = Array.from({ length: Math.min(runs, 7) }, () => {
      const t = performance.now();
      spawnSync(process.execPath, [cli, '--version']);
      return performance.now() - t;
    });
    return {
      notes: 501,
      ruleSourceAdrs: 51,
      stagedFiles: 10,
      addedLines: 600,
      runs,
      // Default (what the installed hook runs): ADRs scanned directly, no SQLite.
      medianMs: round(median(direct), 1),
      p95Ms: round(percentile(direct, 95), 1),
      cpuMedianMs: directCpu.length ? round(median(directCpu), 1) : null,
      bareNodeMedianMs: round(median(nodeOnly), 1),
      ratioToBareNode: round(median(direct) / median(nodeOnly), 2),
      // K0MARU_GUARD_CACHE=1: compiled rules read from the warm guard_rules table in .k0maru/index.db.
      indexCache: { coldFirstRunMs: round(cold, 1), medianMs: round(median(warm), 1), p95Ms: round(percentile(warm, 95), 1), cpuMedianMs: warmCpu.length ? round(median(warmCpu), 1) : null },
      cliVersionMedianMs: round(median(baseline), 1),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

(async () => {
  const loadBefore = loadavg().map((x) => round(x, 2));
  const clean = await inProcess(makeDiff(0), 300);
  const dirty = await inProcess(makeDiff(5), 300);
  console.log('in-process, clean diff:', clean);
  console.log('in-process, 5 violations:', dirty);
  const attacks = await hostile();
  console.log('hostile inputs:', attacks);
  // GUARD_BENCH_QUICK=1: the in-process parts only, nothing written (for a quick look while developing).
  if (process.env.GUARD_BENCH_QUICK === '1') return;
  const proc = processBench(Number(process.env.GUARD_BENCH_RUNS ?? 21));
  console.log('hook pre-commit process:', proc);
  const out = {
    when: new Date().toISOString(),
    machine: { node: process.version, cpus: cpus().length, loadavgAtStart: loadBefore, loadavgAtEnd: loadavg().map((x) => round(x, 2)) },
    targets: { inProcessP95Ms: 5, hookToBareNodeRatio: 2.5 },
    inProcess: { clean, withViolations: dirty },
    hostileInputs: attacks,
    hookPreCommitProcess: proc,
  };
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(join(__dirname, 'results', 'guard.json'), JSON.stringify(out, null, 2) + '\n');
})();
