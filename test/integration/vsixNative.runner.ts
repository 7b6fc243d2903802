// The per-platform package in the real VS Code host: `scripts/package-vsix.mjs --target linux-x64` builds the .vsix,
// code-server installs it, and the in-host 'stale-progress' suite (a Recall that starts the background fill, the
// status bar's "embedding N / M" until the vault is covered) runs against the installed copy with
// K0MARU_EMBED_RUNTIME=native: if the packaged binary did not load, the fill would fail and so would the suite.
// This side also checks, from /proc, that a code-server process mapped the installed package's libonnxruntime.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { installExtension } from './harness/codeServer';
import { FIXTURES, REPO_ROOT, assertPrerequisites, runHostSuite } from './harness/session';
import { buildStaleWorkspace } from './harness/staleWorkspace';

/** Processes that have a shared library from under `dir` whose name is `lib` in their memory map. */
function processesMapping(dir: string, lib: string): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n').some((l) => l.includes(dir) && l.endsWith(`/${lib}`))) pids.push(Number(pid));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

test('linux-x64 .vsix installed in code-server embeds on onnxruntime-node', { timeout: 900_000, skip: process.platform === 'linux' && process.arch === 'x64' ? false : 'linux-x64 only' }, async () => {
  assertPrerequisites();
  let extensionsDir = '';
  const mapped = new Set<number>();
  const previous = process.env.K0MARU_EMBED_RUNTIME;
  // The code-server process inherits this environment, and its extension host with it (harness/codeServer.ts).
  process.env.K0MARU_EMBED_RUNTIME = 'native';
  const poll = setInterval(() => {
    if (extensionsDir) for (const pid of processesMapping(`${extensionsDir}/`, 'libonnxruntime.so.1')) mapped.add(pid);
  }, 2000);
  try {
    const result = await runHostSuite({
      fixture: join(FIXTURES, 'workspace-empty'),
      extensionPath: join(REPO_ROOT, 'test', 'integration', 'hostStub'),
      suite: 'stale-progress',
      hostTimeoutMs: 600_000,
      prepare: async (scratch) => {
        buildStaleWorkspace(join(scratch, 'workspace-empty'));
        const t0 = Date.now();
        const r = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'package-vsix.mjs'), '--target', 'linux-x64', '--out', scratch], { encoding: 'utf8', timeout: 400_000 });
        assert.equal(r.status, 0, `package-vsix failed:\n${r.stdout}\n${r.stderr}`);
        const vsix = r.stdout.trim().split('\n').pop()!.replace(/ \(.*\)$/, '');
        console.log(`package-vsix --target linux-x64: ${r.stdout.trim().split('\n').pop()} in ${Date.now() - t0} ms`);
        extensionsDir = join(scratch, 'installed-extensions');
        await installExtension(vsix, extensionsDir, join(scratch, 'install'));
        return { extensionsDir };
      },
    });
    assert.ok(
      result.statusBarTexts.some((t) => /^K0maru: embedding [\d,]+ \/ [\d,]+$/.test(t)),
      `the workbench never showed "K0maru: embedding N / M": ${JSON.stringify(result.statusBarTexts)}`,
    );
  } finally {
    clearInterval(poll);
    if (previous === undefined) delete process.env.K0MARU_EMBED_RUNTIME;
    else process.env.K0MARU_EMBED_RUNTIME = previous;
  }
  assert.ok(mapped.size > 0, 'no process mapped the installed package\'s dist/ort-native/linux-x64/libonnxruntime.so.1');
  console.log(`libonnxruntime from the installed .vsix mapped by pid(s) ${[...mapped].join(', ')}`);
});
