// MCP server benchmark: spawn → tools/list answered (vs. a bare `node -e 0`), each tool's latency on a 500-note
// vault, and loadout token counts over several vaults. `npx tsx bench/mcp.ts` → bench/results/mcp.json
// The spawn series runs on each runtime (bench/lib/runtimes.ts: Node 20 → node-sqlite3-wasm, a Node 22 when found →
// node:sqlite) next to @modelcontextprotocol/server-memory on the same runtime, the peer of issue 17's goal
// "MCP spawn ≤ 0.6× server-memory" (installed outside the project's deps: SERVER_MEMORY_INSTALL).
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { generateVault } from './lib/vaultGen';
import { runtimes, serverMemoryPath, SERVER_MEMORY_INSTALL } from './lib/runtimes';
import { median, percentile, round } from './lib/stats';
import { openProject } from '../src/core/project';
import { getProjectLoadout } from '../src/core/loadout/loadout';
import { flushNote } from '../src/core/flush';
import { locateVault } from '../src/core/vault/paths';

const REPO = join(__dirname, '..');
const MCP = join(REPO, 'dist', 'mcp.mjs');

/** Wall time from spawn to the tools/list response, speaking raw JSON-RPC so no client library is measured. */
function spawnToToolsList(node: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(node, args, { stdio: ['pipe', 'pipe', 'ignore'], env });
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      if (buf.includes('"id":2')) {
        const ms = performance.now() - t0;
        child.kill();
        resolve(ms);
      }
    });
    child.on('error', reject);
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }) + '\n');
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) + '\n');
  });
}

function nodeFloor(node = process.execPath): number {
  const t0 = performance.now();
  spawnSync(node, ['-e', '0']);
  return performance.now() - t0;
}

async function main() {
  if (!existsSync(MCP)) throw new Error('run `node esbuild.mjs` first');
  const root = mkdtempSync(join(tmpdir(), 'k0-mcpbench-'));
  generateVault(join(root, '.k0maru', 'wiki'), 500);
  const p = openProject({ vault: root });
  await p.scan();
  p.close();
  try {
    const spawnMs: number[] = [];
    const floorMs: number[] = [];
    for (let i = 0; i < 15; i++) {
      floorMs.push(nodeFloor());
      spawnMs.push(await spawnToToolsList(process.execPath, [MCP, '--vault', root]));
    }
    // Per runtime (engine): ours and server-memory, interleaved, same runtime for both.
    const peer = serverMemoryPath();
    const memoryEnv = { ...process.env, MEMORY_FILE_PATH: join(root, 'peer-memory.jsonl') };
    const { list, missing } = runtimes();
    const perEngine: Record<string, unknown> = {};
    const load = () => loadavg().map((x) => round(x, 2));
    for (const rt of list) {
      const loadBefore = load();
      const ours: number[] = [];
      const theirs: number[] = [];
      const floor: number[] = [];
      for (let i = 0; i < 15; i++) {
        floor.push(nodeFloor(rt.node));
        ours.push(await spawnToToolsList(rt.node, [MCP, '--vault', root]));
        if (peer) theirs.push(await spawnToToolsList(rt.node, [peer], memoryEnv));
      }
      perEngine[rt.engine] = {
        node: spawnSync(rt.node, ['--version'], { encoding: 'utf8' }).stdout.trim(),
        oursMs: { p50: round(median(ours)), p95: round(percentile(ours, 95)) },
        serverMemoryMs: peer ? { p50: round(median(theirs)), p95: round(percentile(theirs, 95)) } : { skipped: `not installed: ${SERVER_MEMORY_INSTALL}` },
        nodeFloorMs: { p50: round(median(floor)) },
        ratioToServerMemory: peer ? round(median(ours) / median(theirs), 2) : null,
        ratioToNode: round(median(ours) / median(floor), 2),
        goal06xServerMemory: peer ? median(ours) / median(theirs) <= 0.6 : null,
        // Wall times on a shared 2-core machine are mostly waiting: the load says how much.
        loadavg: { before: loadBefore, after: load() },
        measure: 'wall, spawn to the tools/list answer (initialize + initialized + tools/list written at once), 15 interleaved runs each',
      };
    }
    const transport = new StdioClientTransport({ command: process.execPath, args: [MCP, '--vault', root], stderr: 'ignore' });
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(transport);
    const calls: Record<string, Record<string, unknown>> = {
      get_project_loadout: {},
      recall_memory: { query: 'redis failover lock', mode: 'bm25' },
      guard_check: { diff: 'diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -0,0 +1,2 @@\n+cache_invalidation(\n+ok()\n' },
    };
    const tools: Record<string, unknown> = {};
    for (const [name, args] of Object.entries(calls)) {
      const times: number[] = [];
      for (let i = 0; i < 20; i++) {
        const t0 = performance.now();
        await client.callTool({ name, arguments: args });
        times.push(performance.now() - t0);
      }
      tools[name] = { p50: round(median(times)), p95: round(percentile(times, 95)) };
    }
    const flushTimes: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      await client.callTool({ name: 'flush_session', arguments: { title: `Bench note ${i}`, content: `Body ${i}`, category: 'log' } });
      flushTimes.push(performance.now() - t0);
    }
    // The engine alone, in-process: a new note on the 500-note vault (the issue's ≤ 20 ms figure).
    const paths = locateVault({ vault: root });
    const engine: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      await flushNote(paths, { title: `Engine note ${i}`, content: `Body ${i}`, category: i % 2 ? 'decision' : 'log' });
      engine.push(performance.now() - t0);
    }
    tools.flushNote_in_process = { p50: round(median(engine)), p95: round(percentile(engine, 95)) };
    tools.flush_session_new_note = { p50: round(median(flushTimes)), p95: round(percentile(flushTimes, 95)), note: 'round trip incl. the re-scan that makes the note searchable' };
    await client.close();

    const vaults: Record<string, string> = { demo: join(REPO, 'demo'), generated500: root };
    const layouts = join(REPO, 'test', 'fixtures', 'layouts');
    if (existsSync(layouts)) for (const d of readdirSync(layouts)) vaults[`layout:${d}`] = join(layouts, d);
    const corpus = join(REPO, '..', 'shared', 'corpus', 'adr-vault');
    const loadoutTokens: Record<string, unknown> = {};
    for (const [name, dir] of Object.entries(vaults)) {
      const work = mkdtempSync(join(tmpdir(), 'k0-lo-'));
      try {
        if (existsSync(join(dir, '.k0maru'))) cpSync(dir, work, { recursive: true, filter: (s) => !/index\.db/.test(s) });
        else {
          mkdirSync(join(work, '.k0maru'));
          writeFileSync(join(work, '.k0maru', 'config.json'), JSON.stringify({ vault: dir }));
        }
        const proj = openProject({ vault: work });
        await proj.scan();
        const l = await getProjectLoadout(proj);
        proj.close();
        loadoutTokens[name] = { tokens: l.tokens, droppedLines: l.dropped };
      } catch (e) {
        loadoutTokens[name] = { error: (e as Error).message };
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    }
    if (existsSync(corpus)) {
      const work = mkdtempSync(join(tmpdir(), 'k0-lo-'));
      mkdirSync(join(work, '.k0maru'));
      writeFileSync(join(work, '.k0maru', 'config.json'), JSON.stringify({ vault: corpus }));
      const proj = openProject({ vault: work });
      await proj.scan();
      const l = await getProjectLoadout(proj);
      proj.close();
      rmSync(work, { recursive: true, force: true });
      loadoutTokens.corpus = { tokens: l.tokens, droppedLines: l.dropped };
    }
    const spawnMed = median(spawnMs);
    const floorMed = median(floorMs);
    const results = {
      date: new Date().toISOString(),
      spawnToToolsListMs: { p50: round(spawnMed), p95: round(percentile(spawnMs, 95)) },
      nodeFloorMs: { p50: round(floorMed) },
      spawnRatioToNodeFloor: round(spawnMed / floorMed),
      spawnPerEngine: perEngine,
      spawnNativeMissing: missing ?? null,
      toolLatencyMs500Notes: tools,
      loadoutTokens,
    };
    console.log(JSON.stringify(results, null, 2));
    mkdirSync(join(__dirname, 'results'), { recursive: true });
    writeFileSync(join(__dirname, 'results', 'mcp.json'), JSON.stringify(results, null, 2) + '\n');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
