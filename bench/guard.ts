// Living ADR Guard benchmark (`npx tsx bench/guard.ts`, writes bench/results/guard.json).
//  1. In-process: 100 rules × 1,000 added lines over 50 files (TS, Python, Go, Rust, SQL), diff text → violations,
//     p50/p95. Two diffs: a clean one and one with a handful of violations (so tree-sitter parses run).
//  2. The whole `k0maru hook pre-commit` process (bundled dist/cli.mjs) on a 500-note vault with a staged change,
//     median, with the rule cache warm in the index (and the first, cold run reported separately).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseUnifiedDiff } from '../src/core/guard/diffParser';
import { prepareRules, runRules } from '../src/core/guard/engine';
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
  // Some violations sit where only a parse can tell (inside a string), the others take the parse-free path.
  if (violate) return (i - 5) % 2000 === 0 ? `  const q${i} = run("forbidden_call_0(1)");` : `  const v${i} = forbidden_call_0(${i}); // ok`;
  switch (ext) {
    case 'ts': return `  const value${i} = computeSomething(arg${i}, "héllo wörld") + other; // note ${i}`;
    case 'py': return `    value_${i} = compute_something(arg_${i}, "héllo") + other  # note ${i}`;
    case 'go': return `\tvalue${i} := computeSomething(arg${i}, "héllo") + other // note ${i}`;
    case 'rs': return `    let value_${i} = compute_something(arg_${i}, "héllo") + other; // note ${i}`;
    default: return `  SELECT id, name FROM table_${i} WHERE k = ${i}; -- note ${i}`;
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
      for (let c = 0; c < 3; c++) parts.push(` context ${c}`);
      parts.push('-removed forbidden_call_0(1)');
      parts.push('-removed line');
      for (let a = 0; a < 10; a++) {
        const violate = placed < violations && f % 10 === 0 && h === 0 && a === 5;
        if (violate) placed++;
        parts.push('+' + addedLine(ext, f * 100 + h * 10 + a, violate));
      }
      for (let c = 0; c < 8; c++) parts.push(` context tail ${c}`);
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
    const cold = run({ K0MARU_GUARD_CACHE: '1' }); // builds the guard_rules cache in .k0maru/index.db
    cpu.length = 0;
    const warm = Array.from({ length: runs }, () => run({ K0MARU_GUARD_CACHE: '1' }));
    const warmCpu = [...cpu];
    cpu.length = 0;
    const direct = Array.from({ length: runs }, () => run());
    const directCpu = [...cpu];
    const baseline = Array.from({ length: Math.min(runs, 7) }, () => {
      const t = performance.now();
      spawnSync(process.execPath, [cli, '--version']);
      return performance.now() - t;
    });
    const nodeOnly = Array.from({ length: 7 }, () => {
      const t = performance.now();
      spawnSync(process.execPath, ['-e', '0']);
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
      // K0MARU_GUARD_CACHE=1: compiled rules read from the warm guard_rules table in .k0maru/index.db.
      indexCache: { coldFirstRunMs: round(cold, 1), medianMs: round(median(warm), 1), p95Ms: round(percentile(warm, 95), 1), cpuMedianMs: warmCpu.length ? round(median(warmCpu), 1) : null },
      cliVersionMedianMs: round(median(baseline), 1),
      bareNodeMedianMs: round(median(nodeOnly), 1),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

(async () => {
  const clean = await inProcess(makeDiff(0), 300);
  const dirty = await inProcess(makeDiff(5), 300);
  console.log('in-process, clean diff:', clean);
  console.log('in-process, 5 violations:', dirty);
  const proc = processBench(Number(process.env.GUARD_BENCH_RUNS ?? 15));
  console.log('hook pre-commit process:', proc);
  const out = {
    when: new Date().toISOString(),
    machine: { node: process.version, cpus: require('node:os').cpus().length, loadavg: require('node:os').loadavg().map((x: number) => round(x, 2)) },
    targets: { inProcessP95Ms: 5, processMedianMs: 120 },
    inProcess: { clean, withViolations: dirty },
    hookPreCommitProcess: proc,
  };
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(join(__dirname, 'results', 'guard.json'), JSON.stringify(out, null, 2) + '\n');
})();
