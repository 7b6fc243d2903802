import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * The enforced direction (../shared/style.md): cli, mcp, extension → core; extension, webview → shared.
 * core never imports an adapter or the editor; no adapter imports another (nothing imports cli or extension); the webview page reaches the host only through src/shared;
 * src/shared itself imports neither node nor vscode (the page runs in a browser).
 */
const REPO = join(__dirname, '..', '..', '..');
const SRC = join(REPO, 'src');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(ts|tsx|mts|cts)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Every module specifier a file names: static imports and re-exports, `import type`, import(), require(). */
export function specifiers(source: string): string[] {
  // Comments could name an import in prose; strip them first (strings survive: specifiers are strings).
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const found: string[] = [];
  const patterns = [/\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g, /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g];
  for (const re of patterns) for (const m of code.matchAll(re)) found.push(m[1]!);
  return found;
}

const isBuiltin = (s: string) => s.startsWith('node:') || builtinModules.includes(s.split('/')[0]!);
const rel = (p: string) => relative(REPO, p).split(sep).join('/');

function imports(file: string): { spec: string; target?: string }[] {
  return specifiers(readFileSync(file, 'utf8')).map((spec) => ({ spec, target: spec.startsWith('.') ? rel(resolve(dirname(file), spec)) : undefined }));
}

function violations(files: string[], bad: (i: { spec: string; target?: string }) => boolean): string[] {
  return files.flatMap((f) => imports(f).filter(bad).map((i) => `${rel(f)} imports '${i.spec}'`));
}

test('the import scanner sees every form of import (so the rules below can fail)', () => {
  const src = [
    "import * as vscode from 'vscode';",
    "import type { X } from '../cli/command';",
    "export { y } from '../mcp/server';",
    "const m = await import('../extension/api');",
    "const r = require('node:fs');",
    "import './side-effect';",
    '// import { not } from "a-comment";',
  ].join('\n');
  assert.deepEqual(specifiers(src).sort(), ['../cli/command', '../extension/api', '../mcp/server', './side-effect', 'node:fs', 'vscode'].sort());
});

test('src/core imports neither an adapter (src/cli, src/mcp, src/extension) nor vscode', () => {
  const files = sourceFiles(join(SRC, 'core'));
  assert.ok(files.length > 50, `found only ${files.length} core files`);
  const bad = violations(files, (i) => i.spec === 'vscode' || i.spec.startsWith('vscode/') || (!!i.target && /^src\/(cli|mcp|extension)(\/|$)/.test(i.target)));
  assert.deepEqual(bad, []);
});

test('src/mcp and src/extension never import src/cli; src/cli and src/mcp never import src/extension', () => {
  const files = [join(SRC, 'mcp'), join(SRC, 'extension')].flatMap(sourceFiles);
  assert.ok(files.length > 30, `found only ${files.length} mcp and extension files`);
  const bad = violations(files, (i) => !!i.target && /^src\/cli(\/|$)/.test(i.target));
  const intoEditor = violations([join(SRC, 'cli'), join(SRC, 'mcp')].flatMap(sourceFiles), (i) => !!i.target && /^src\/extension(\/|$)/.test(i.target));
  assert.deepEqual([...bad, ...intoEditor], []);
});

test('the webview page imports only src/shared (and its own files and browser packages)', () => {
  const files = sourceFiles(join(REPO, 'webview'));
  assert.ok(files.length > 3, `found only ${files.length} webview files`);
  const bad = violations(files, (i) => i.spec === 'vscode' || isBuiltin(i.spec) || (!!i.target && !/^(webview|src\/shared)(\/|$)/.test(i.target)));
  assert.deepEqual(bad, []);
});

test('src/shared imports neither node, vscode nor anything outside itself', () => {
  const bad = violations(sourceFiles(join(SRC, 'shared')), (i) => i.spec === 'vscode' || isBuiltin(i.spec) || (!!i.target && !/^src\/shared(\/|$)/.test(i.target)));
  assert.deepEqual(bad, []);
});
