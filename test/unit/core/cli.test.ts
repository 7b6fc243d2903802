import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { COMMANDS } from '../../../src/cli/commands/index';
import { runCli } from '../../../src/cli/main';
import { tempVault } from '../../helpers/tempVault';

function io(cwd = process.cwd()) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  return { io: { stdout, stderr, stdin: new PassThrough(), cwd, env: { ...process.env, K0MARU_VAULT: undefined, CLAUDE_PROJECT_DIR: undefined } }, out: () => out, err: () => err };
}

test('the lazy command registry agrees with every command module (name and summary)', async () => {
  for (const entry of COMMANDS) {
    const cmd = await entry.load();
    assert.equal(cmd.name, entry.name);
    assert.equal(cmd.summary, entry.summary, `summary of '${entry.name}' drifted`);
  }
  assert.equal(new Set(COMMANDS.map((c) => c.name)).size, COMMANDS.length);
});

test('--help lists every command; unknown commands and bad options are usage errors (exit 2) with one clear line', async () => {
  const h = io();
  assert.equal(await runCli(['--help'], h.io), 0);
  for (const c of COMMANDS) assert.match(h.out(), new RegExp(`\\n  ${c.name} `));
  const u = io();
  assert.equal(await runCli(['frobnicate'], u.io), 2);
  assert.match(u.err(), /unknown command 'frobnicate'/);
  const b = io();
  assert.equal(await runCli(['recall', '--no-such-flag', 'x'], b.io), 2);
  assert.match(b.err(), /unknown option '--no-such-flag' \[INVALID_ARGUMENT\]/);
});

test('scan and recall through the CLI: counts, wire lines, JSON, and exit 3 without a vault', async () => {
  const v = tempVault({ 'a.md': '# Alpha\nThe E0502 borrow conflict.\n', 'b.md': '# Beta\nnothing\n' });
  try {
    const s = io();
    assert.equal(await runCli(['scan', '--vault', v.root], s.io), 0);
    assert.match(s.out(), /Indexed 2 note\(s\) in [\d.]+ ms: 2 added, 0 modified, 0 touched, 0 unchanged, 0 deleted, 0 skipped/);
    const r = io();
    assert.equal(await runCli(['recall', 'E0502', '--mode', 'bm25', '--vault', v.root], r.io), 0);
    assert.match(r.out(), /^!μ:L1\|a\.md\|score:[\d.]+\|links:0\/0 § .*E0502/m);
    const j = io();
    assert.equal(await runCli(['recall', 'E0502', '--mode', 'bm25', '--json', '--vault', v.root], j.io), 0);
    assert.equal(JSON.parse(j.out()).hits[0].path, 'a.md');
    const none = io('/');
    assert.equal(await runCli(['recall', 'x'], none.io), 3);
    assert.match(none.err(), /\[VAULT_NOT_FOUND\]/);
    assert.doesNotMatch(none.err(), /at .*\.ts:\d+/, 'no stack trace without --debug');
  } finally {
    v.cleanup();
  }
});
