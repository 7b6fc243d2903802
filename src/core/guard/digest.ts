/**
 * FNV-1a over two lanes: a short, stable, file-name-safe digest for cache keys. Nothing that uses it needs a
 * cryptographic hash, and node:crypto would cost a module load on every hook run.
 */
export function digest(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  }
  return (h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0');
}
