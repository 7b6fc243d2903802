import { existsSync, lstatSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { K0Error } from '../errors';
import { linkRefusal } from './noteFiles';
import { readRegularFile } from './regularFile';
import { resolveUserPath } from './userPath';

/** Where everything of one project lives. The notes root is the Markdown source of truth. */
export interface VaultPaths {
  /** The repository / project root: the folder that holds `.k0maru/`. */
  projectRoot: string;
  /** `.k0maru/` — index, refs, config. */
  k0Dir: string;
  /** Folder of Markdown notes: `.k0maru/wiki/` or a bound Obsidian vault. */
  notesRoot: string;
  indexPath: string;
  refsDir: string;
  configPath: string;
}

export interface K0Config {
  /** A bound vault (Obsidian) instead of `.k0maru/wiki`, relative to the project root or absolute. */
  vault?: string;
  /** Extra ignore globs relative to the notes root. */
  exclude?: string[];
  /**
   * Project-relative folders of ADRs read in place alongside the vault (indexed and enforced). Absent: the usual
   * ADR folders that exist (`docs/adr`, `doc/adr`, `docs/decisions`, …; see noteSources.ts); `[]`: none.
   */
  sources?: string[];
  /** Core stack override for the loadout. */
  stack?: string[];
  /** Living ADR Guard settings: `inferred` = how rules inferred from prose apply (see core/guard/inferredPolicy.ts). */
  guard?: { inferred?: unknown };
}

export const K0_DIR = '.k0maru';
export const WIKI_DIR = 'wiki';

export function readConfig(k0Dir: string): K0Config {
  const p = join(k0Dir, 'config.json');
  if (!existsSync(p)) return {};
  let text: string;
  try {
    // Never blocks: a cloned repository's config.json can be a FIFO, or a folder.
    text = readRegularFile(p, 1024 * 1024).toString('utf8');
  } catch (err) {
    throw new K0Error('INVALID_ARGUMENT', `${p}: cannot be read as a file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  try {
    const parsed = JSON.parse(text);
    return parsed && typeof parsed === 'object' ? (parsed as K0Config) : {};
  } catch (err) {
    throw new K0Error('INVALID_ARGUMENT', `${p}: invalid JSON (${(err as Error).message})`);
  }
}

/** The folders under `.k0maru/` that K0maru writes into (offload store and ledger, guard cache, the wiki's notes). */
const WRITTEN_SUBDIRS = ['refs', 'cache', WIKI_DIR];

/**
 * Refuses a `.k0maru` (or one of the folders K0maru writes under it) that is a symlink the notes' symlink policy
 * would not follow: a target outside the project, the project itself, a hidden or ignored folder, or nothing (a
 * dangling link: a mkdir through it would create its target). K0maru writes its index, locks, journals, caches and
 * offloaded logs there, and a cloned repository can carry `.k0maru -> /tmp/x` or `-> ../../elsewhere`: nothing is
 * ever written through such a link. A link to a listable folder inside the project (`.k0maru -> ./memory`) is used
 * like the folder itself. Absent is fine (`k0maru init` creates it). Costs one lstat per folder when nothing is linked.
 */
export function assertOwnK0Dir(projectRoot: string): void {
  const root = resolve(projectRoot);
  const k0Dir = join(root, K0_DIR);
  checkLinked(root, k0Dir, K0_DIR);
  for (const sub of WRITTEN_SUBDIRS) checkLinked(root, join(k0Dir, sub), `${K0_DIR}/${sub}`);
}

function checkLinked(root: string, p: string, name: string): void {
  let linked: boolean;
  try {
    linked = lstatSync(p).isSymbolicLink();
  } catch {
    return; // absent (or unreadable: opening it reports that)
  }
  if (!linked) return;
  let real: string | undefined;
  let rootReal: string;
  try {
    rootReal = realpathSync.native(root);
    real = realpathSync.native(p);
  } catch {
    real = undefined;
  }
  const why =
    real === undefined ? 'does not exist (a dangling link)' : real === rootReal! ? 'is the project folder itself' : linkRefusal(real, rootReal!, rootReal!, true);
  if (!why) return;
  throw new K0Error(
    'PATH_OUTSIDE_VAULT',
    `${name} in ${root} is a symlink to ${real ?? 'a missing path'}, which ${why}: K0maru keeps its index, locks, journals, caches and offloaded logs there and never writes through such a link (a cloned repository can carry one). ` +
      `Fix: replace it with a real folder (\`rm ${p} && mkdir ${p}\`, then copy in any notes you want to keep, or run \`k0maru init\`), or point it at a folder inside the project that is not hidden.`,
    { path: p, target: real },
  );
}

export function pathsForProject(projectRoot: string): VaultPaths {
  const root = resolve(projectRoot);
  const k0Dir = join(root, K0_DIR);
  assertOwnK0Dir(root);
  const cfg = readConfig(k0Dir);
  // A config committed from another OS: `..\\notes` works everywhere, a drive letter off Windows is a coded error.
  const notesRoot = cfg.vault ? resolveUserPath(cfg.vault, root) : join(k0Dir, WIKI_DIR);
  return {
    projectRoot: root,
    k0Dir,
    notesRoot,
    indexPath: join(k0Dir, 'index.db'),
    refsDir: join(k0Dir, 'refs'),
    configPath: join(k0Dir, 'config.json'),
  };
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

export interface LocateOptions {
  /** Explicit `--vault`: a project root (with `.k0maru/`) or the `.k0maru` folder itself. */
  vault?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Finds the project: `--vault`, then `K0MARU_VAULT`, then `CLAUDE_PROJECT_DIR`, then walking up from the
 * working directory. Never assumes the cwd is the project (Cursor starts MCP servers with cwd `/`).
 */
export function locateVault(opts: LocateOptions = {}): VaultPaths {
  const env = opts.env ?? process.env;
  const explicit = opts.vault ?? env.K0MARU_VAULT ?? undefined;
  if (explicit) {
    const abs = resolveUserPath(explicit, opts.cwd ?? process.cwd()); // `.\app`, `C:\…` (userPath.ts)
    if (!existsSync(abs)) throw new K0Error('VAULT_NOT_FOUND', `vault path does not exist: ${abs}`);
    if (abs.endsWith(K0_DIR) && isDir(abs)) return pathsForProject(dirname(abs));
    if (isDir(join(abs, K0_DIR))) return pathsForProject(abs);
    throw new K0Error('VAULT_NOT_FOUND', `no ${K0_DIR}/ folder in ${abs} (run \`k0maru init\` there first)`);
  }
  const starts = [env.CLAUDE_PROJECT_DIR, opts.cwd ?? process.cwd()].filter((s): s is string => !!s);
  for (const start of starts) {
    let dir = resolve(start);
    for (;;) {
      if (isDir(join(dir, K0_DIR))) return pathsForProject(dir);
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
  }
  throw new K0Error(
    'VAULT_NOT_FOUND',
    `no ${K0_DIR}/ folder found from ${starts.join(' or ')} upwards; run \`k0maru init\` or pass --vault PATH`,
  );
}

/** Resolves a vault-relative path and refuses anything that would land outside `root`. */
export function safeJoin(root: string, rel: string): string {
  if (rel.includes('\0')) throw new K0Error('PATH_OUTSIDE_VAULT', 'path contains a NUL byte');
  if (isAbsolute(rel)) throw new K0Error('PATH_OUTSIDE_VAULT', `absolute paths are not allowed here: ${rel}`);
  const abs = resolve(root, rel);
  const rootAbs = resolve(root);
  if (abs !== rootAbs && !abs.startsWith(rootAbs + '/') && !abs.startsWith(rootAbs + '\\')) {
    throw new K0Error('PATH_OUTSIDE_VAULT', `path escapes the vault: ${rel}`);
  }
  return abs;
}
