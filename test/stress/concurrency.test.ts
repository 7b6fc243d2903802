// Two MCP servers + the CLI + a hand editor on one vault for 60 s (full) / 10 s (short): no note lost, torn or
// duplicated, no INTERNAL error anywhere, and the index passes integrity_check afterwards. With a Node 22 at hand
// (lib.ts: MIXED) server b and the CLI run on node:sqlite while server a runs on node-sqlite3-wasm: both engines
// meet on the same index file through the shared `<db>.lock` protocol (src/core/index/engine.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync, appendFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { connectMcp, engineOf, ENGINES, errorCode, integrityCheck, isInternal, MIXED, percentile, record, round, runCli, size } from './lib';

const DURATION_MS = size(60_000, 10_000);

test(`two MCP servers, the CLI and a hand editor for ${DURATION_MS / 1000} s, ${ENGINES}: 0 lost / torn / duplicated notes, 0 INTERNAL, integrity ok`, async () => {
  const root = mkdtempSync(join(tmpdir(), 'k0stress-conc-'));
  spawnSync('git', ['init', '-q'], { cwd: root });
  const notes = join(root, '.k0maru', 'wiki');
  mkdirSync(join(notes, '02_Architecture'), { recursive: true });
  mkdirSync(join(notes, 'hand'), { recursive: true });
  writeFileSync(join(notes, '02_Architecture', 'adr-001-base.md'), '---\nstatus: accepted\n---\n# ADR-001: Base\n\n## Invariants\n\n- deny: eval( | id: BASE-1\n');
  // The engines each side really runs (a probe in the process), so "mixed" is a fact of this run, not a hope.
  const engines = { wasmSide: await engineOf(root, 'wasm'), nativeSide: await engineOf(root, 'native') };
  assert.deepEqual(engines, { wasmSide: 'wasm', nativeSide: MIXED ? 'native' : 'wasm' });
  const servers = await Promise.all([connectMcp(root, {}, 'wasm'), connectMcp(root, {}, MIXED ? 'native' : 'wasm')]);
  const end = Date.now() + DURATION_MS;
  const expected = new Map<string, string>(); // marker → who wrote it
  const internal: string[] = [];
  const codes: Record<string, number> = {};
  const latencies: number[] = [];
  let calls = 0;
  let cliRuns = 0;
  let handEdits = 0;
  const note = (r: unknown, what: string) => {
    if (isInternal(r)) internal.push(`${what}: ${JSON.stringify(r).slice(0, 400)}`);
    const c = errorCode(r);
    if (c) codes[c] = (codes[c] ?? 0) + 1;
  };

  const serverLoop = async (s: (typeof servers)[number], name: string) => {
    for (let i = 0; Date.now() < end; i++) {
      const marker = `m-${name}-${i}`;
      const t0 = performance.now();
      const kind = i % 4;
      let r: unknown;
      if (kind === 0 || kind === 1) {
        r = await s.client.callTool({ name: 'flush_session', arguments: { title: `Note ${marker}`, content: `body ${marker}\n${'line\n'.repeat(50)}`, category: kind ? 'concept' : 'log' } });
        if (!(r as { isError?: boolean }).isError) expected.set(marker, name);
      } else if (kind === 2) {
        // Mostly BM25 (what an agent's quick lookups cost); every fourth one hybrid, which starts the embedding worker.
        const mode = i % 16 === 2 ? 'hybrid' : 'bm25';
        r = await s.client.callTool({ name: 'recall_memory', arguments: { query: `body m-${name}-${i - 2}`, mode } });
      } else {
        r = await s.client.callTool({ name: 'get_project_loadout', arguments: {} });
      }
      latencies.push(performance.now() - t0);
      calls++;
      note(r, `${name} call ${i}`);
      if (isInternal(r)) internal.push(`${name} server stderr: ${s.stderr().slice(-800)}`);
    }
  };
  const cliLoop = async () => {
    for (let i = 0; Date.now() < end; i++) {
      const marker = `m-cli-${i}`;
      writeFileSync(join(root, `c-${i}.md`), `body ${marker}\n`);
      const r = await runCli(root, ['flush', '--title', `Note ${marker}`, '--content-file', `c-${i}.md`, '--json'], { runtime: 'native' });
      cliRuns++;
      if (r.code === 0) expected.set(marker, 'cli');
      else if (/INTERNAL/.test(r.err)) internal.push(`cli flush: ${r.err.slice(0, 400)}`);
      else codes[`cli-exit-${r.code}`] = (codes[`cli-exit-${r.code}`] ?? 0) + 1;
      const s = await runCli(root, ['recall', 'body', '--mode', 'bm25', '--json'], { runtime: 'native' });
      if (/INTERNAL/.test(s.err)) internal.push(`cli recall: ${s.err.slice(0, 400)}`);
    }
  };
  const handLoop = async () => {
    for (let i = 0; Date.now() < end; i++) {
      // A person saving notes: new files, and appending to one note over and over.
      writeFileSync(join(notes, 'hand', `hand-${i}.md`), `# Hand ${i}\n\nbody m-hand-${i}\n`);
      expected.set(`m-hand-${i}`, 'hand');
      appendFileSync(join(notes, 'hand', 'journal.md'), `- entry ${i}\n`);
      handEdits++;
      await new Promise((r) => setTimeout(r, 200)); // a person saves a few times a second at most
    }
  };
  try {
    await Promise.all([serverLoop(servers[0], 'a'), serverLoop(servers[1], 'b'), cliLoop(), handLoop()]);
    // Every server still answers.
    for (const s of servers) assert.ok((await s.client.listTools()).tools.length > 0);
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }

  const files = (readdirSync(notes, { recursive: true }) as string[]).filter((f) => f.endsWith('.md'));
  const seen = new Map<string, string[]>();
  let torn = 0;
  for (const f of files) {
    const text = readFileSync(join(notes, f), 'utf8');
    if (text.startsWith('---') && !/^---\n[\s\S]*?\n---\n/.test(text)) torn++;
    for (const m of text.matchAll(/body (m-[a-z]+-\d+)/g)) seen.set(m[1], [...(seen.get(m[1]) ?? []), f]);
  }
  const lost = [...expected.keys()].filter((m) => !seen.has(m));
  const duplicated = [...seen.entries()].filter(([, fs]) => fs.length > 1);
  const leftovers = (readdirSync(join(root, '.k0maru'), { recursive: true }) as string[]).filter((f) => f.endsWith('.tmp') || /flush\.journal/.test(f));
  // One more scan by the CLI (so the index saw everything), then the integrity check with every writer stopped.
  const last = await runCli(root, ['scan']);
  const integrity = integrityCheck(join(root, '.k0maru', 'index.db'));
  record('concurrency', {
    engines: MIXED ? 'mixed: server a wasm (Node 20), server b + CLI native (Node 22)' : 'wasm only',
    probed: engines,
    seconds: DURATION_MS / 1000,
    mcpCalls: calls,
    cliRuns,
    handEdits,
    notesExpected: expected.size,
    lost: lost.length,
    torn,
    duplicated: duplicated.length,
    internal: internal.length,
    otherErrors: codes,
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
    integrity,
  });
  assert.equal(last.code, 0, last.err);
  assert.deepEqual(internal, []);
  assert.deepEqual(lost, []);
  assert.equal(torn, 0);
  assert.deepEqual(duplicated, []);
  assert.deepEqual(leftovers, []);
  assert.equal(integrity, 'ok');
});
