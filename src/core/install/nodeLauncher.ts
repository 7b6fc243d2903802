/**
 * The committed Node launchers `.k0maru/bin/k0maru-mcp.cjs` (agent configs) and `.k0maru/bin/k0maru-hook.cjs`
 * (Claude Code's Stop hook). They replace `sh …/k0maru-mcp` in agent configs because `sh` is not on a stock
 * Windows PATH, while every client that starts a stdio server can start `node`.
 *
 * They look for k0maru in the order of the sh launcher (launcher.ts): `$K0MARU_BIN`, the project's node_modules
 * (the package's own `bin` entry, so no `.cmd` shim is needed on Windows), the CLI recorded at install time
 * (skipped when that file does not exist on this machine), then `k0maru` on PATH (on Windows npm's global prefix,
 * where the shims sit beside `node_modules`, or a `k0maru.exe` / `.cmd`). A JavaScript CLI is run in this very
 * process (no second Node, no signal forwarding); anything else is spawned with inherited stdio.
 *
 * `findK0maru` takes the platform and a `path` module, so its Windows branch is tested with `path.win32` on any
 * machine (test/unit/install/nodeLauncher.test.ts loads this very text).
 */
export type LauncherMode = 'mcp' | 'hook';

export const PACKAGE_NAME = 'k0maru-agent-memory';

export function nodeLauncherSource(mode: LauncherMode, recorded: string): string {
  return `'use strict';
// Written by k0maru (\`k0maru init --install\`); commit it with the vault. It finds k0maru on whatever machine
// opens the repository (Windows, macOS, Linux): $K0MARU_BIN, the project's node_modules, the CLI that ran the
// install (when that file exists here), then k0maru on PATH, and runs \`k0maru ${mode === 'mcp' ? 'mcp --vault <this project>' : 'hook'}\`.
const fs = require('fs');
const nodePath = require('path');
const MODE = ${JSON.stringify(mode)};
const RECORDED = ${JSON.stringify(recorded === 'k0maru' ? '' : recorded)};
const PACKAGE = ${JSON.stringify(PACKAGE_NAME)};

function words(command) {
  return (command.match(/"[^"]*"|\\S+/g) || []).map((w) => w.replace(/^"(.*)"$/, '$1'));
}
const isScript = (file) => /\\.[cm]?js$/i.test(file);

function packageBin(dir, o) {
  const pkg = o.path.join(dir, 'node_modules', PACKAGE, 'package.json');
  if (!o.exists(pkg)) return undefined;
  try {
    const bin = JSON.parse(o.readText(pkg)).bin;
    const rel = typeof bin === 'string' ? bin : bin && bin.k0maru;
    const script = typeof rel === 'string' ? o.path.join(o.path.dirname(pkg), rel) : undefined;
    return script && o.exists(script) ? script : undefined;
  } catch {
    return undefined;
  }
}

function command(file, args, o, via) {
  if (isScript(file) && !args.length) return { kind: 'script', script: file, via };
  return { kind: 'exec', file, args, shell: o.platform === 'win32' && /\\.(cmd|bat)$/i.test(file), via };
}

/** Where k0maru is: { kind: 'script', script } (run in this process) or { kind: 'exec', file, args, shell }. */
function findK0maru(o) {
  const bin = (o.env.K0MARU_BIN || '').trim();
  if (bin) {
    const w = words(bin);
    return command(w[0], w.slice(1), o, 'K0MARU_BIN');
  }
  const local = packageBin(o.root, o);
  if (local) return { kind: 'script', script: local, via: 'node_modules' };
  if (o.recorded) {
    const w = words(o.recorded);
    const last = w[w.length - 1];
    if (last && o.path.isAbsolute(last) && o.exists(last)) return isScript(last) && w.length <= 2 ? { kind: 'script', script: last, via: 'recorded' } : command(w[0], w.slice(1), o, 'recorded');
  }
  const key = Object.keys(o.env).find((k) => k.toUpperCase() === 'PATH');
  for (const dir of (key ? o.env[key] || '' : '').split(o.path.delimiter)) {
    if (!dir) continue;
    if (o.platform === 'win32') {
      const global = o.exists(o.path.join(dir, 'k0maru.cmd')) ? packageBin(dir, o) : undefined;
      if (global) return { kind: 'script', script: global, via: 'PATH' };
      for (const ext of ['.exe', '.cmd', '.bat']) {
        const file = o.path.join(dir, 'k0maru' + ext);
        if (o.exists(file)) return command(file, [], o, 'PATH');
      }
    } else if (o.exists(o.path.join(dir, 'k0maru'))) return command(o.path.join(dir, 'k0maru'), [], o, 'PATH');
  }
  return undefined;
}

/** cmd.exe needs its own quoting when a .cmd shim must run through the shell. */
const cmdQuote = (a) => (/^[\\w.:\\\\/=-]+$/.test(a) ? a : '"' + a.replace(/"/g, '""') + '"');

function isFile(p) {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function missing() {
  if (MODE === 'mcp') {
    console.error('k0maru: not found (set K0MARU_BIN, npm i -D ' + PACKAGE + ', or install the K0maru extension)');
    process.exitCode = 127;
  } else {
    console.error('k0maru: not found (set K0MARU_BIN or npm i -D ' + PACKAGE + '); Living ADR Guard skipped');
    process.exitCode = 0; // a guard that is not installed never blocks work
  }
}

function main(argv) {
  const root = nodePath.resolve(__dirname, '..', '..');
  const found = findK0maru({ root, env: process.env, platform: process.platform, path: nodePath, exists: isFile, readText: (f) => fs.readFileSync(f, 'utf8'), recorded: RECORDED });
  const args = MODE === 'mcp' ? ['mcp', '--vault', root].concat(argv) : ['hook'].concat(argv);
  // Hooks find the project from the working directory, like git's hooks do from the top of the worktree.
  if (MODE === 'hook') process.chdir(root);
  if (!found) return missing();
  if (found.kind === 'script') {
    process.argv = [process.execPath, found.script].concat(args);
    import(require('url').pathToFileURL(found.script).href).catch((err) => {
      console.error('k0maru: could not start ' + found.script + ': ' + err.message);
      process.exitCode = MODE === 'mcp' ? 1 : 0;
    });
    return;
  }
  const all = found.args.concat(args);
  const child = require('child_process').spawn(found.shell ? cmdQuote(found.file) : found.file, found.shell ? all.map(cmdQuote) : all, { stdio: 'inherit', shell: found.shell, windowsHide: true });
  const forward = (sig) => () => child.kill(sig);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, forward(sig));
  child.on('error', (err) => (err.code === 'ENOENT' ? missing() : (console.error('k0maru: ' + err.message), (process.exitCode = MODE === 'mcp' ? 1 : 0))));
  child.on('exit', (code, signal) => {
    process.exitCode = code === null ? (signal ? 128 + (require('os').constants.signals[signal] || 0) : 1) : code;
  });
}

module.exports = { findK0maru, main };
if (require.main === module) main(process.argv.slice(2));
`;
}
