#!/usr/bin/env node
import { EXIT } from './command';
import { runCli } from './main';
import { preferQuickWasmStart } from '../core/index/wasmTier';

const LONG_LIVED = ['mcp', 'ui'];

// The `k0maru` executable (bundled as dist/cli.mjs).
//
// No JS compile cache (issue 17, measured): Node 22's module.enableCompileCache stores V8's code cache of an ES
// module right after compiling it, before it runs, so it holds the top level only — the bundle's functions are
// compiled lazily on first call and are not in it. A cache in the package folder changed a clean Node 22
// `k0maru scan` by 0 ± 3 ms CPU (85 vs 87 ms, 500 notes; 195 vs 191 ms, 5,000; `--version` 54 vs 51). Node 20
// has no code cache for ES modules at all. Cutting what is loaded (lazy imports) is what paid.

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

// One process per command: SQLite's and RE2's WASM is not worth TurboFan's tier-up here (issue 17; wasmTier.ts).
// Except the two commands that serve for hours (`k0maru mcp`, `k0maru ui`): they pay the tier-up once and then run
// the faster code. A query or value spelled `mcp` / `ui` only costs that command V8's default tiering.
if (!LONG_LIVED.some((c) => process.argv.slice(2).includes(c))) preferQuickWasmStart();

// stdin only when a command reads it: process.stdin's getter opens the stream, which on a pipe or file loads fs
// streams and fs/promises (issue 17: a scan or a hook never reads stdin).
const io = {
  stdout: process.stdout,
  stderr: process.stderr,
  get stdin() {
    return process.stdin;
  },
  cwd: process.cwd(),
  env: process.env,
};
runCli(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = outputFailed && code === EXIT.OK ? EXIT.IO : code;
  },
  (err) => {
    process.stderr.write(`k0maru: internal error: ${(err as Error).message}\n`);
    process.exitCode = EXIT.INTERNAL;
  },
);
