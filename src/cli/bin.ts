#!/usr/bin/env node
import { EXIT } from './command';
import { runCli } from './main';

// The `k0maru` executable (bundled as dist/cli.mjs).
runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, cwd: process.cwd(), env: process.env }).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`k0maru: internal error: ${(err as Error).message}\n`);
    process.exitCode = EXIT.INTERNAL;
  },
);
