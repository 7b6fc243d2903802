#!/usr/bin/env node
import { useCompileCache } from './compileCache';
import { EXIT } from './command';

declare const __K0MARU_BUNDLED__: boolean | undefined;

const LONG_LIVED = ['mcp', 'ui'];

// The `k0maru` executable (bundled as dist/cli.mjs). It imports nothing else at the top (./command is a few
// constants): the compile cache (compileCache.ts) must be on before the rest of the CLI is compiled, so the CLI
// is loaded below, after it.
// Only the bundle uses it (its folder is the package's dist/); run from source, tsx compiles anyway.
if (typeof __K0MARU_BUNDLED__ !== 'undefined' && __K0MARU_BUNDLED__) useCompileCache(__dirname);

// The reader of our output can go away early (`k0maru scan --json | head -1`): every later write then fails with
// EPIPE, emitted as an 'error' event that would otherwise kill the process with a stack trace. Nothing more can
// be said to that reader, and the command's own work (a scan, a flush) is still worth finishing, so the broken
// stream is dropped quietly and the exit code stays the command's. Any other output failure is an I/O error.
let outputFailed = false;
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') return;
    outputFailed = true;
  });
}

async function main(): Promise<number> {
  // One process per command: SQLite's and RE2's WASM is not worth TurboFan's tier-up here (issue 17; wasmTier.ts).
  // Except the two commands that serve for hours (`k0maru mcp`, `k0maru ui`): they pay the tier-up once and then run
  // the faster code. A query or value spelled `mcp` / `ui` only costs that command V8's default tiering.
  const [{ runCli }, { preferQuickWasmStart }] = await Promise.all([import('./main'), import('../core/index/wasmTier')]);
  if (!LONG_LIVED.some((c) => process.argv.slice(2).includes(c))) preferQuickWasmStart();
  return runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, cwd: process.cwd(), env: process.env });
}

main().then(
  (code) => {
    process.exitCode = outputFailed && code === EXIT.OK ? EXIT.IO : code;
  },
  (err) => {
    process.stderr.write(`k0maru: internal error: ${(err as Error).message}\n`);
    process.exitCode = EXIT.INTERNAL;
  },
);
