/**
 * Which stack frames belong to the user's code. The root `file:line` of a failure is the first frame (in the
 * order the runtime means "closest to the fault") that is not in a standard library, a dependency folder or
 * the runtime itself. The list is deliberately path-based: it works for every runtime without symbol tables.
 */
const LIBRARY_MARKERS: readonly RegExp[] = [
  /(^|[\\/])node_modules[\\/]/,
  /^node:/, // node:internal/..., node:events
  /^internal[\\/]/,
  /^<anonymous>$/,
  /^<frozen /,
  /^<string>$/,
  /[\\/]site-packages[\\/]/,
  /[\\/]dist-packages[\\/]/,
  /[\\/]lib[\\/]python\d(\.\d+)?[\\/]/,
  /^\/rustc\/[0-9a-f]+\//,
  /(^|[\\/])(rustc|library)[\\/](std|core|alloc|proc_macro)[\\/]src[\\/]/,
  /[\\/]\.cargo[\\/]registry[\\/]/,
  /[\\/]\.rustup[\\/]toolchains[\\/]/,
  /[\\/]go[\\/]pkg[\\/]mod[\\/]/,
  /^\/usr\/(local\/)?(lib|share|include)\//,
  /[\\/]lib[\\/]go(-[\d.]+)?[\\/]src[\\/]/,
  /(^|[\\/])src[\\/]runtime[\\/]/,
  /^\.\.\/(sysdeps|csu|nptl)[\\/]/,
  /libsanitizer/,
  /^\/lib(64)?\//,
];

export function isLibraryPath(path: string): boolean {
  return LIBRARY_MARKERS.some((re) => re.test(path));
}

/** Normalises what runtimes print (file:// URLs, `./` prefixes) without making paths relative: the agent needs them as printed. */
export function cleanPath(p: string): string {
  let out = p.trim();
  if (out.startsWith('file://')) out = out.slice('file://'.length);
  if (out.startsWith('./')) out = out.slice(2);
  return out;
}
