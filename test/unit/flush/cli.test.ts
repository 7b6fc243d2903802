import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/main';

async function cli(args: string[], cwd: string, stdinText?: string) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  if (stdinText === undefined) stdin.isTTY = true;
  else stdin.end(stdinText);
  const code = await runCli(args, { stdout, stderr, stdin, cwd, env: {} });
  return { code, out, err };
}

test('k0maru init then flush from stdin and from --content-file, supersedes by id, JSON output', async () => {
  const root = mkdtempSync(join(tmpdir(), 'k0cli-'));
  const init = await cli(['init'], root);
  assert.equal(init.code, 0);
  assert.match(init.out, /created {2}\.k0maru\/wiki\/00_Meta\/vision\.md/);

  const a = await cli(['flush', '--title', 'Use Redis', '--category', 'decision', '--tags', 'cache,redis', '--date', '2026-11-30'], root, 'Redis for locks.\n');
  assert.equal(a.code, 0, a.err);
  assert.equal(a.out.trim(), '02_Architecture/adr-001-use-redis.md: created');

  writeFileSync(join(root, 'body.md'), 'Valkey instead.\n');
  const b = await cli(
    ['flush', '--json', '-t', 'Use Valkey', '-c', 'decision', '--supersedes', 'ADR-001', '--related', 'vision', '-f', 'body.md', '--date', '2026-11-30'],
    root,
  );
  assert.equal(b.code, 0, b.err);
  const r = JSON.parse(b.out);
  assert.equal(r.path, '02_Architecture/adr-002-use-valkey.md');
  assert.deepEqual(r.superseded, ['02_Architecture/adr-001-use-redis.md']);
  const old = readFileSync(join(root, '.k0maru/wiki/02_Architecture/adr-001-use-redis.md'), 'utf8');
  assert.match(old, /^status: superseded$/m);
  assert.match(readFileSync(join(root, '.k0maru/wiki', r.path), 'utf8'), /- \[\[vision\]\]/);
});

test('k0maru flush errors: one line with the code, exit 2 for bad input, 3 without a vault', async () => {
  const root = mkdtempSync(join(tmpdir(), 'k0cli-'));
  const noVault = await cli(['flush', '--title', 'x'], root, 'body');
  assert.equal(noVault.code, 3);
  assert.match(noVault.err, /VAULT_NOT_FOUND/);
  await cli(['init'], root);
  const noContent = await cli(['flush', '--title', 'x'], root);
  assert.equal(noContent.code, 2);
  assert.match(noContent.err, /no content/);
  const missing = await cli(['flush', '--title', 'x', '--supersedes', '../../etc/passwd'], root, 'b');
  assert.equal(missing.code, 2);
  assert.match(missing.err, /PATH_OUTSIDE_VAULT/);
  assert.equal(missing.err.trim().split('\n').length, 1, 'no stack trace without --debug');
  const badVault = await cli(['init', '--vault', 'does-not-exist'], root);
  assert.equal(badVault.code, 3);
});
