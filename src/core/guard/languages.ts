/**
 * File extension → language. The language decides which tree-sitter grammar classifies a match and, for
 * languages without a grammar here, which comment markers the lexical fallback knows.
 */

export interface LanguageInfo {
  id: string;
  /** Grammar file in @vscode/tree-sitter-wasm (`tree-sitter-<grammar>.wasm`), when one is shipped. */
  grammar?: string;
  lineComments: string[];
  blockComments: [string, string][];
  /** Quote characters whose contents are string literals for the lexical fallback. */
  quotes: string[];
}

const C_LIKE = { lineComments: ['//'], blockComments: [['/*', '*/']] as [string, string][], quotes: ['"', "'", '`'] };
const HASH = { lineComments: ['#'], blockComments: [] as [string, string][], quotes: ['"', "'"] };

const LANGS: Record<string, LanguageInfo> = {
  ts: { id: 'ts', grammar: 'typescript', ...C_LIKE },
  tsx: { id: 'tsx', grammar: 'tsx', ...C_LIKE },
  js: { id: 'js', grammar: 'javascript', ...C_LIKE },
  python: { id: 'python', grammar: 'python', ...HASH },
  go: { id: 'go', grammar: 'go', ...C_LIKE },
  rust: { id: 'rust', grammar: 'rust', lineComments: ['//'], blockComments: [['/*', '*/']], quotes: ['"'] },
  // No C grammar ships in @vscode/tree-sitter-wasm; the C++ one classifies C comments and strings the same.
  c: { id: 'c', grammar: 'cpp', lineComments: ['//'], blockComments: [['/*', '*/']], quotes: ['"', "'"] },
  cpp: { id: 'cpp', grammar: 'cpp', lineComments: ['//'], blockComments: [['/*', '*/']], quotes: ['"', "'"] },
  java: { id: 'java', grammar: 'java', lineComments: ['//'], blockComments: [['/*', '*/']], quotes: ['"', "'"] },
  csharp: { id: 'csharp', grammar: 'c-sharp', lineComments: ['//'], blockComments: [['/*', '*/']], quotes: ['"', "'"] },
  ruby: { id: 'ruby', ...HASH },
  php: { id: 'php', lineComments: ['//', '#'], blockComments: [['/*', '*/']], quotes: ['"', "'"] },
  bash: { id: 'bash', ...HASH },
  yaml: { id: 'yaml', ...HASH },
  toml: { id: 'toml', ...HASH },
  sql: { id: 'sql', lineComments: ['--'], blockComments: [['/*', '*/']], quotes: ["'"] },
  lua: { id: 'lua', lineComments: ['--'], blockComments: [['--[[', ']]']], quotes: ['"', "'"] },
  haskell: { id: 'haskell', lineComments: ['--'], blockComments: [['{-', '-}']], quotes: ['"'] },
  kotlin: { id: 'kotlin', ...C_LIKE },
  swift: { id: 'swift', ...C_LIKE },
  scala: { id: 'scala', ...C_LIKE },
  css: { id: 'css', lineComments: [], blockComments: [['/*', '*/']], quotes: ['"', "'"] },
  html: { id: 'html', lineComments: [], blockComments: [['<!--', '-->']], quotes: [] },
  markdown: { id: 'markdown', lineComments: [], blockComments: [['<!--', '-->']], quotes: [] },
  text: { id: 'text', lineComments: [], blockComments: [], quotes: [] },
};

const EXT: Record<string, string> = {
  ts: 'ts', mts: 'ts', cts: 'ts', tsx: 'tsx', js: 'js', mjs: 'js', cjs: 'js', jsx: 'js',
  py: 'python', pyi: 'python', go: 'go', rs: 'rust',
  c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', cxx: 'cpp', hpp: 'cpp', hh: 'cpp', hxx: 'cpp', java: 'java', cs: 'csharp',
  rb: 'ruby', php: 'php', sh: 'bash', bash: 'bash', zsh: 'bash', yml: 'yaml', yaml: 'yaml', toml: 'toml',
  sql: 'sql', lua: 'lua', hs: 'haskell', kt: 'kotlin', kts: 'kotlin', swift: 'swift', scala: 'scala',
  css: 'css', scss: 'css', html: 'html', htm: 'html', vue: 'html', md: 'markdown', markdown: 'markdown',
};

/** Names accepted in a rule's `lang:` modifier → canonical ids. `ts` covers tsx and `js` covers jsx. */
const ALIASES: Record<string, string[]> = {
  ts: ['ts', 'tsx'], typescript: ['ts', 'tsx'], tsx: ['tsx'], js: ['js'], javascript: ['js'], jsx: ['js'],
  py: ['python'], python: ['python'], go: ['go'], golang: ['go'], rs: ['rust'], rust: ['rust'],
  c: ['c'], cpp: ['cpp'], 'c++': ['cpp'], java: ['java'], cs: ['csharp'], csharp: ['csharp'], 'c#': ['csharp'],
  rb: ['ruby'], ruby: ['ruby'], php: ['php'], sh: ['bash'], bash: ['bash'], shell: ['bash'], yaml: ['yaml'], yml: ['yaml'],
  toml: ['toml'], sql: ['sql'], lua: ['lua'], haskell: ['haskell'], kotlin: ['kotlin'], swift: ['swift'], scala: ['scala'],
  css: ['css'], html: ['html'], md: ['markdown'], markdown: ['markdown'],
};

export function languageOf(path: string): LanguageInfo {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  if (name === 'dockerfile' || name === 'makefile') return LANGS.bash;
  const dot = name.lastIndexOf('.');
  const id = dot >= 0 ? EXT[name.slice(dot + 1)] : undefined;
  return LANGS[id ?? 'text'];
}

/** Expands `lang:` names; unknown names return undefined so the parser can report them. */
export function resolveLangNames(name: string): string[] | undefined {
  return ALIASES[name.trim().toLowerCase()];
}
