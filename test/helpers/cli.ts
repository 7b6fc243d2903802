import { PassThrough } from 'node:stream';
import { runCli } from '../../src/cli/main';

/** Runs `k0maru <args>` in-process with captured stdout / stderr and an optional stdin text. */
export async function runCliCaptured(args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; stdin?: string }): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const stdout = new PassThrough().on('data', (d) => (out += String(d)));
  const stderr = new PassThrough().on('data', (d) => (err += String(d)));
  const stdin = new PassThrough();
  stdin.end(opts.stdin ?? '');
  const code = await runCli(args, { stdout, stderr, stdin, cwd: opts.cwd, env: opts.env ?? {} });
  return { code, out, err };
}
