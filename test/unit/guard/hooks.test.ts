import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { installHooks, uninstallHooks, BEGIN } from '../../../src/core/guard/hookInstaller';
import { makeRepo, type TempRepo } from './helpers';

// The hooks run the real CLI from source (node + tsx), the way the bundled dist/cli.js is run after a build.
const MAIN = resolve(__dirname, '..', '..', 'fixtures', 'guard', 'runCli.ts');
const TSX = pathToFileURL(require.resolve('tsx')).href;
const COMMAND = `"${process.execPath}" --import "${TSX}" "${MAIN}"`;

const ADR = '---\nstatus: accepted\n---\n# ADR-1: No eval\n\n## Invariants\n\n- deny: `eval(` | id: NO-EVAL | because: eval runs untrusted code.\n';

function repoWithAdr(): TempRepo {
  const r = makeRepo({ '.k0maru/wiki/adr/adr-001.md': ADR, '.gitignore': '.k0maru/index.db*\n', 'src/ok.ts': 'export const ok = 1;\n' });
  r.commit('init');
  return r;
}

function cli(r: TempRepo, args: string[], input?: string) {
  return spawnSync(process.execPath, ['--import', TSX, MAIN, ...args], { cwd: r.root, input, encoding: 'utf8', env: { ...process.env, CLAUDE_PROJECT_DIR: r.root } });
}

test('a real git commit is blocked by the installed hook and goes through after the fix', () => {
  const r = repoWithAdr();
  try {
    const rep = installHooks(r.root, { command: COMMAND });
    assert.equal(rep.target, 'git-hooks');
    r.write('src/bad.ts', 'export const run = (code: string) => eval(code);\n');
    r.git('add', 'src/bad.ts');
    const blocked = spawnSync('git', ['commit', '-m', 'bad'], { cwd: r.root, encoding: 'utf8' });
    assert.notEqual(blocked.status, 0, 'the commit must fail');
    assert.match(blocked.stderr, /❌ Living ADR Guard Failure: 1 violation detected/);
    assert.match(blocked.stderr, /\[NO-EVAL\] src\/bad\.ts:1: 'eval\(' violates invariant 'deny: eval\('/);
    assert.match(blocked.stderr, /Remediation: eval runs untrusted code\./);
    assert.equal(r.git('rev-list', '--count', 'HEAD').trim(), '1');

    r.write('src/bad.ts', '// no eval( here any more\nexport const run = (code: string) => JSON.parse(code);\n');
    r.git('add', 'src/bad.ts');
    const ok = spawnSync('git', ['commit', '-m', 'fixed'], { cwd: r.root, encoding: 'utf8' });
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(r.git('rev-list', '--count', 'HEAD').trim(), '2');

    // `git commit -a` and `git commit -- path` use a temporary index (GIT_INDEX_FILE): the hook sees exactly it.
    r.write('src/ok.ts', 'export const ok = eval("1");\n');
    assert.notEqual(spawnSync('git', ['commit', '-am', 'sneaky'], { cwd: r.root }).status, 0);
    r.write('src/clean.ts', 'export const clean = 1;\n');
    r.git('add', 'src/clean.ts');
    const partial = spawnSync('git', ['commit', '-m', 'clean only', '--', 'src/clean.ts'], { cwd: r.root, encoding: 'utf8' });
    assert.equal(partial.status, 0, 'an unstaged violation elsewhere does not block a clean partial commit: ' + partial.stderr);
  } finally {
    r.dispose();
  }
});

test('Stop hook: exit 2 + report on stderr on violations, loop policy with stop_hook_active, exit 0 once fixed', () => {
  const r = repoWithAdr();
  try {
    r.write('src/agent.ts', 'eval("1+1");\n');
    const payload = (active: boolean) =>
      JSON.stringify({ session_id: `s-${r.root}`, transcript_path: '/tmp/t.jsonl', cwd: r.root, hook_event_name: 'Stop', stop_hook_active: active, last_assistant_message: 'Done.' });
    const first = cli(r, ['hook', 'stop'], payload(false));
    assert.equal(first.status, 2, first.stderr);
    assert.match(first.stderr, /\[NO-EVAL\] src\/agent\.ts:1/);
    // The agent tried again without fixing anything: the same violations → let it stop instead of looping.
    const again = cli(r, ['hook', 'stop'], payload(true));
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stderr, /same violations remain/);
    // A new blocking sequence, then progress (a different violation set) still blocks.
    assert.equal(cli(r, ['hook', 'stop'], payload(false)).status, 2);
    r.write('src/agent.ts', 'eval("2+2");\neval("3");\n');
    assert.equal(cli(r, ['hook', 'stop'], payload(true)).status, 2);
    r.write('src/agent.ts', 'export const x = 4;\n');
    const fixed = cli(r, ['hook', 'stop'], payload(true));
    assert.equal(fixed.status, 0, fixed.stderr);
    assert.equal(fixed.stderr, '');
    // Internal failure (not a git repository) is deliberately fail-open: exit 1, message on stderr.
    const broken = spawnSync(process.execPath, ['--import', TSX, MAIN, 'hook', 'stop'], { cwd: '/', input: JSON.stringify({ cwd: '/', stop_hook_active: false }), encoding: 'utf8', env: { ...process.env, CLAUDE_PROJECT_DIR: '' } });
    assert.equal(broken.status, 1);
    assert.match(broken.stderr, /could not run, not blocking/);
  } finally {
    r.dispose();
  }
});

test('guard CLI: exit codes 0 / 1 / 2 and --json', () => {
  const r = repoWithAdr();
  try {
    assert.equal(cli(r, ['guard', '--staged']).status, 0);
    r.write('src/x.ts', 'eval(a)\n');
    const v = cli(r, ['guard', '--json']);
    assert.equal(v.status, 1);
    const json = JSON.parse(v.stdout);
    assert.equal(json.ok, false);
    assert.equal(json.violations[0].ruleId, 'NO-EVAL');
    assert.equal(cli(r, ['guard', '--staged', '--branch', 'main']).status, 2);
    assert.equal(cli(r, ['guard', '--bogus']).status, 2);
    assert.equal(cli(r, ['guard', 'src/x.ts']).status, 1);
  } finally {
    r.dispose();
  }
});

test('installer: chains a foreign .git/hooks/pre-commit, is idempotent, uninstall restores bytes exactly', () => {
  const r = repoWithAdr();
  try {
    const hook = join(r.root, '.git', 'hooks', 'pre-commit');
    const foreign = '#!/bin/sh\necho foreign hook ran\nexit 0\n';
    writeFileSync(hook, foreign);
    chmodSync(hook, 0o755);
    const settingsPath = join(r.root, '.claude', 'settings.json');
    mkdirSync(join(r.root, '.claude'));
    const settings = '{\n  "permissions": {"allow": ["Bash(ls)"]},\n  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo other"}]}], "PreToolUse": []}\n}\n';
    writeFileSync(settingsPath, settings);

    const first = installHooks(r.root, { command: COMMAND });
    const installed = readFileSync(hook, 'utf8');
    assert.ok(installed.startsWith('#!/bin/sh\n' + BEGIN), 'our block runs first, before a foreign exit 0');
    assert.ok(installed.includes('echo foreign hook ran'), 'the foreign hook is kept and still runs');
    const merged = JSON.parse(readFileSync(settingsPath, 'utf8'));
    assert.deepEqual(merged.permissions, { allow: ['Bash(ls)'] });
    assert.equal(merged.hooks.Stop.length, 2);
    assert.equal(merged.hooks.Stop[0].hooks[0].command, 'echo other');
    assert.match(merged.hooks.Stop[1].hooks[0].command, /^node -e ".*'k0maru-hook\.cjs'.*" \. stop$/);
    assert.ok(first.changed.includes('.claude/settings.json'));

    const second = installHooks(r.root, { command: COMMAND });
    assert.deepEqual(second.changed, [], 'idempotent');
    assert.equal(readFileSync(hook, 'utf8'), installed);

    r.write('src/bad.ts', 'eval(x)\n');
    r.git('add', '-A');
    const blocked = spawnSync('git', ['commit', '-m', 'x'], { cwd: r.root, encoding: 'utf8' });
    assert.notEqual(blocked.status, 0);
    assert.doesNotMatch(blocked.stdout + blocked.stderr, /foreign hook ran/, 'a failing guard stops the chain');

    uninstallHooks(r.root);
    assert.equal(readFileSync(hook, 'utf8'), foreign);
    assert.equal(readFileSync(settingsPath, 'utf8'), settings);
    assert.ok(!existsSync(join(r.root, '.k0maru', 'bin', 'k0maru-hook')));
    assert.ok(!existsSync(join(r.root, '.k0maru', 'bin', 'k0maru-hook.cjs')));
    assert.ok(!existsSync(join(r.root, '.k0maru', 'hooks-install.json')));
  } finally {
    r.dispose();
  }
});

test('installer: husky, pre-commit framework, core.hooksPath; edits after install are preserved on uninstall', () => {
  const husky = repoWithAdr();
  try {
    mkdirSync(join(husky.root, '.husky', '_'), { recursive: true });
    husky.git('config', 'core.hooksPath', '.husky/_');
    writeFileSync(join(husky.root, '.husky', 'pre-commit'), 'npm test\n');
    const rep = installHooks(husky.root, { command: COMMAND, claude: false });
    assert.equal(rep.target, 'husky');
    const text = readFileSync(join(husky.root, '.husky', 'pre-commit'), 'utf8');
    assert.ok(text.startsWith(BEGIN) && text.endsWith('npm test\n'));
    assert.ok(!existsSync(join(husky.root, '.husky', '_', 'pre-commit')), 'never writes into .husky/_');
    writeFileSync(join(husky.root, '.husky', 'pre-commit'), text + 'npm run lint\n'); // user edit after install
    uninstallHooks(husky.root);
    assert.equal(readFileSync(join(husky.root, '.husky', 'pre-commit'), 'utf8'), 'npm test\nnpm run lint\n');
    assert.ok(!existsSync(join(husky.root, '.claude')), 'claude: false leaves .claude alone');
  } finally {
    husky.dispose();
  }

  const pc = repoWithAdr();
  try {
    const yaml = '# lint\nrepos:\n    - repo: https://github.com/psf/black\n      rev: 24.1.0\n      hooks:\n          - id: black\ndefault_stages: [pre-commit]\n';
    writeFileSync(join(pc.root, '.pre-commit-config.yaml'), yaml);
    assert.equal(installHooks(pc.root, { command: COMMAND }).target, 'pre-commit-framework');
    const doc = parseYaml(readFileSync(join(pc.root, '.pre-commit-config.yaml'), 'utf8'));
    assert.equal(doc.repos.length, 2);
    const local = doc.repos.find((x: { repo: string }) => x.repo === 'local');
    assert.equal(local.hooks[0].id, 'k0maru-guard');
    assert.equal(local.hooks[0].language, 'system');
    assert.deepEqual(doc.default_stages, ['pre-commit']);
    assert.ok(!existsSync(join(pc.root, '.git', 'hooks', 'pre-commit')));
    uninstallHooks(pc.root);
    assert.equal(readFileSync(join(pc.root, '.pre-commit-config.yaml'), 'utf8'), yaml);
  } finally {
    pc.dispose();
  }

  const custom = repoWithAdr();
  try {
    custom.git('config', 'core.hooksPath', 'githooks');
    installHooks(custom.root, { command: COMMAND, claude: false });
    const p = join(custom.root, 'githooks', 'pre-commit');
    assert.ok(readFileSync(p, 'utf8').includes(BEGIN));
    custom.write('src/bad.ts', 'eval(y)\n');
    custom.git('add', 'src/bad.ts');
    assert.notEqual(spawnSync('git', ['commit', '-m', 'x'], { cwd: custom.root }).status, 0);
    uninstallHooks(custom.root);
    assert.ok(!existsSync(p));
    assert.ok(!existsSync(join(custom.root, 'githooks')));
  } finally {
    custom.dispose();
  }
});

test('installer refuses invalid .claude/settings.json before touching anything', () => {
  const r = repoWithAdr();
  try {
    mkdirSync(join(r.root, '.claude'));
    writeFileSync(join(r.root, '.claude', 'settings.json'), '{ not json');
    assert.throws(() => installHooks(r.root, { command: COMMAND }), /not valid JSON/);
    assert.ok(!existsSync(join(r.root, '.git', 'hooks', 'pre-commit')));
    assert.ok(!existsSync(join(r.root, '.k0maru', 'bin', 'k0maru-hook')));
    assert.equal(readFileSync(join(r.root, '.claude', 'settings.json'), 'utf8'), '{ not json');
    // Without Claude the git hook installs fine.
    assert.equal(installHooks(r.root, { command: COMMAND, claude: false }).target, 'git-hooks');
  } finally {
    r.dispose();
  }
});
