/**
 * Which stack frames belong to the user's code. The root `file:line` of a failure is the frame closest to the
 * fault (innermost) that is not in a standard library, a dependency folder, a test framework or the runtime
 * itself. Paths decide for runtimes that print paths; JVM and .NET frames print a qualified symbol and only a
 * file's base name, so there the symbol's namespace decides.
 */
const LIBRARY_MARKERS: readonly RegExp[] = [
  /(^|[\\/])node_modules[\\/]/,
  /^(node|bun|ext|deno):/, // node:internal/..., bun:main, Deno's ext:core/...
  // Node < 16 named its own sources `internal/…js`; a relative Go `internal/` package is user code.
  /^internal[\\/].*\.js$/,
  /^<anonymous>$/,
  /^native$/,
  /^<frozen /,
  /^<string>$/,
  /[\\/]site-packages[\\/]/,
  /[\\/]dist-packages[\\/]/,
  /[\\/]lib[\\/]python\d(\.\d+)?[\\/]/,
  /[\\/]Python\d+[\\/]Lib[\\/]/i, // Windows CPython
  /^\/rustc\/[0-9a-f]+\//,
  /(^|[\\/])(rustc|library)[\\/](std|core|alloc|proc_macro|test)[\\/]src[\\/]/,
  /[\\/]\.cargo[\\/]registry[\\/]/,
  /[\\/]\.cargo[\\/]git[\\/]/,
  /[\\/]\.rustup[\\/]toolchains[\\/]/,
  /[\\/]go[\\/]pkg[\\/]mod[\\/]/,
  // GOROOT, wherever it is installed (/usr/local/go, /usr/lib/go-1.22, ~/sdk/go1.22.0, a CI tool cache):
  // a standard-library package right under `src/`. A GOPATH checkout (`/go/src/app/…`) stays user code.
  /[\\/]src[\\/](?:runtime|testing|reflect|sync|fmt|os|io|net|internal|encoding|strings|strconv|sort|bufio|bytes|errors|math|time|context|crypto|database|syscall|unicode|path|regexp|log|container|compress|hash|html|image|mime|text|archive|debug|embed|flag|plugin|slices|maps|cmp|iter|unique|vendor|cmd)[\\/](?:.*[\\/])?[^\\/]+\.(?:go|s)$/,
  /^\/usr\/(local\/)?(lib|lib64|share|include|libexec)\//,
  /^(\.\.\/)?(sysdeps|csu|nptl|stdlib|libio|string)[\\/]/,
  /[\\/]include[\\/]c\+\+[\\/]/,
  /libsanitizer/,
  /^\/lib(64)?\//,
  /^\/_\//, // .NET's own sources as their PDBs name them
  /^\/(opt\/homebrew|Library\/Developer|Applications\/Xcode[^/]*\.app)\//,
];

/** JVM / .NET namespaces of the runtime, build tools and test frameworks. */
const LIBRARY_SYMBOL = /^(?:[\w.]+\/)?(?:java|javax|jdk|sun|com\.sun|kotlin|kotlinx|scala|groovy|org\.junit|junit|org\.opentest4j|org\.apache\.maven|org\.gradle|worker\.org\.gradle|org\.testng|org\.hamcrest|org\.assertj|org\.mockito|org\.springframework|org\.jetbrains|System|Microsoft|Xunit|NUnit|NUnit3|MSTest|Castle)\./;

export function isLibraryPath(path: string): boolean {
  const p = collapseDots(path);
  return LIBRARY_MARKERS.some((re) => re.test(p));
}

/** `/usr/bin/../lib/gcc/…` (how clang names libstdc++ headers) is `/usr/lib/gcc/…`. */
function collapseDots(path: string): string {
  if (!path.includes('/.')) return path;
  const out: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '.') continue;
    if (seg === '..' && out.length > 1 && out[out.length - 1] !== '..' && out[out.length - 1] !== '') out.pop();
    else out.push(seg);
  }
  return out.join('/');
}

export function isLibrarySymbol(symbol: string): boolean {
  return LIBRARY_SYMBOL.test(symbol.trim());
}

/** Normalises what runtimes print (file:// URLs, `./` prefixes) without making paths relative: the agent needs them as printed. */
export function cleanPath(p: string): string {
  let out = p.trim();
  if (out.startsWith('file://')) out = out.slice('file://'.length);
  if (out.startsWith('./')) out = out.slice(2);
  return out;
}
