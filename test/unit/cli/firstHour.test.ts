import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { DIST_CLI, ensureBuilt } from '../../helpers/build';

/**
 * Issue 16 items 2–6: what a new user trips over in the first hour with the CLI, checked through the built binary
 * (dist/cli.mjs) in a fresh `git init` + `k0maru init` folder, the way a person would meet it.
 */

const env = (home: string) => ({ PATH: process.env.PATH ?? '', HOME: home });

function fresh(readme?: string): { root: string; run(args: string[]): { code: number; out: string; err: string }; done(): void } {
  ensureBuilt();
  const root = mkdtempSync(join(tmpdir(), 'k0-first-hour-'));
  execFileSync('git', ['init', '-q'], { cwd: root });
  if (readme !== undefined) writeFileSync(join(root, 'README.md'), readme);
  const run = (args: string[]) => {
    const r = spawnSync(process.execPath, [DIST_CLI, ...args], { cwd: root, env: env(root), encoding: 'utf8' });
    return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
  };
  assert.equal(run(['init']).code, 0);
  return { root, run, done: () => rmSync(root, { recursive: true, force: true }) };
}

/** Every file under root (relative, '/'), skipping .git and the index caches. */
function files(root: string, dir = root, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const abs = join(dir, name);
    if (name === '.git' && dir === root) continue;
    if (statSync(abs).isDirectory()) files(root, abs, out);
    else out.push(relative(root, abs).split('\\').join('/'));
  }
  return out.filter((p) => !/^\.k0maru\/(index\.db|cache)/.test(p)).sort();
}

test('issue16-item2: the loadout right after init never shows the vision template as the vision (CLI and MCP)', async () => {
  const bare = fresh();
  try {
    const r = bare.run(['loadout']);
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.out, /One or two sentences|<!--|-->|- Vision: --/, r.out);
    assert.doesNotMatch(r.out, /- Vision:/, 'no real vision and no README: the line is left out');
  } finally {
    bare.done();
  }
  const withReadme = fresh('# Ledgerly\n\n[![CI](https://x/badge.svg)](https://x)\n\n<!-- a note for maintainers, not the vision -->\n\nLedgerly books every Stripe payment exactly once, even when webhooks arrive twice.\n\n## Install\n\nnpm i\n');
  try {
    const r = withReadme.run(['loadout']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^- Vision: Ledgerly books every Stripe payment exactly once, even when webhooks arrive twice\.$/m, r.out);
    const transport = new StdioClientTransport({ command: process.execPath, args: [DIST_CLI, 'mcp', '--vault', withReadme.root], cwd: withReadme.root, env: env(withReadme.root), stderr: 'pipe' });
    const client = new Client({ name: 'first-hour', version: '1' });
    await client.connect(transport);
    try {
      const res = await client.callTool({ name: 'get_project_loadout', arguments: {} });
      const text = (res.content as { text: string }[])[0].text;
      assert.doesNotMatch(text, /One or two sentences|<!--|- Vision: --/, text);
      assert.match(text, /- Vision: Ledgerly books every Stripe payment exactly once/, text);
    } finally {
      await client.close();
    }
  } finally {
    withReadme.done();
  }
});

test('issue16-item3: offload of a missing file is IO_ERROR, exit 4, one line', () => {
  const v = fresh();
  try {
    const r = v.run(['offload', 'missing.log']);
    assert.equal(r.code, 4, r.err);
    assert.equal(r.err.trim().split('\n').length, 1, r.err);
    assert.match(r.err, /^k0maru offload: .*missing\.log.* \[IO_ERROR\]$/m);
    assert.doesNotMatch(r.err, /Unhandled|node:events|    at /);
    const json = v.run(['offload', 'missing.log', '--json']);
    assert.equal(json.code, 4);
    assert.equal(JSON.parse(json.out).error.code, 'IO_ERROR');
  } finally {
    v.done();
  }
});

test('issue16-item4: unknown commands and flags give the usage line, the code and a did-you-mean', () => {
  const v = fresh();
  try {
    const cmd = v.run(['recal', 'payments']);
    assert.equal(cmd.code, 2);
    assert.match(cmd.err, /unknown command 'recal'.*\[INVALID_ARGUMENT\]/);
    assert.match(cmd.err, /did you mean 'recall'\?/);
    assert.match(cmd.err, /^Usage: k0maru <command>/m);

    const flag = v.run(['recall', '--mdoe', 'bm25', 'payments']);
    assert.equal(flag.code, 2);
    assert.match(flag.err, /unknown option '--mdoe'.*\[INVALID_ARGUMENT\]/);
    assert.match(flag.err, /did you mean '--mode'\?/);
    assert.match(flag.err, /^Usage: k0maru recall "query"/m);
    assert.doesNotMatch(flag.err, /To specify a positional argument|'-- "--mdoe"/, 'not Node parseArgs text with its unbalanced quote');

    const far = v.run(['recall', '--zzzzzz', 'x']);
    assert.doesNotMatch(far.err, /did you mean/, 'no suggestion when nothing is close');

    const missingValue = v.run(['recall', 'x', '--mode']);
    assert.equal(missingValue.code, 2);
    assert.match(missingValue.err, /\[INVALID_ARGUMENT\]/);

    const inspect = v.run(['inspect']);
    assert.equal(inspect.code, 2);
    assert.doesNotMatch(inspect.err, /inspect: inspect/);
    assert.match(inspect.err, /^k0maru inspect: needs exactly one node id/m);
  } finally {
    v.done();
  }
});

test('issue16-item5: init --install on an initialised vault says what it wrote; --uninstall lists deleted and restored files', () => {
  const v = fresh();
  try {
    writeFileSync(join(v.root, '.mcp.json'), '{"mcpServers":{"other":{"command":"x"}}}\n');
    const before = files(v.root);
    const r = v.run(['init', '--install']);
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.out, /Nothing to do/);
    const after = files(v.root);
    const written = after.filter((f) => !before.includes(f)).concat(['.mcp.json']);
    for (const f of written) if (!f.startsWith('.k0maru/agents-install') && !f.startsWith('.k0maru/hooks-install')) assert.match(r.out, new RegExp(`^\\s+wrote\\s+${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'), `${f} missing from:\n${r.out}`);

    const u = v.run(['init', '--uninstall']);
    assert.equal(u.code, 0, u.err);
    const gone = after.filter((f) => !files(v.root).includes(f) && !/-install\.json$/.test(f));
    assert.ok(gone.includes('.k0maru/bin/k0maru-mcp.cjs'), gone.join(','));
    for (const f of gone) assert.match(u.out, new RegExp(`^\\s+deleted\\s+${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'), `${f} not listed as deleted:\n${u.out}`);
    assert.match(u.out, /^\s+restored\s+\.mcp\.json\b/m, u.out);
    assert.doesNotMatch(u.out, /restored\s+\.(cursor|vscode|gemini)/, 'files that did not exist before are deleted, not restored');
    assert.deepEqual(files(v.root), before);
  } finally {
    v.done();
  }
});

test('issue16-item6: recall --explain prints a readable table; --explain --json keeps the JSON', () => {
  const v = fresh();
  try {
    writeFileSync(join(v.root, '.k0maru/wiki/02_Architecture/adr-001-payments.md'), '# Payments are idempotent\n\nEvery Stripe payment is booked once; webhooks carry an idempotency key.\n');
    const r = v.run(['recall', 'payments idempotency', '--explain', '--mode', 'bm25']);
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.out.trimStart(), /^\{/, 'not raw JSON');
    assert.doesNotMatch(r.out, /\d\.\d{5,}/, `numbers are rounded:\n${r.out}`);
    assert.match(r.out, /^\s*#\s+score\s+bm25/m, r.out);
    assert.match(r.out, /02_Architecture\/adr-001-payments\.md/);
    const j = v.run(['recall', 'payments idempotency', '--explain', '--mode', 'bm25', '--json']);
    assert.equal(j.code, 0, j.err);
    const parsed = JSON.parse(j.out);
    assert.equal(parsed.candidates[0].path, '02_Architecture/adr-001-payments.md');
    assert.equal(typeof parsed.candidates[0].bm25.score, 'number');
  } finally {
    v.done();
  }
});
