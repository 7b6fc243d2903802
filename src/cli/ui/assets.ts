import { createReadStream, existsSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';

/**
 * The page's bundle (dist/webview/webview.js + webview.css, built by esbuild.mjs). The server answers a fixed list
 * of names and never turns a URL into a file path, so no request can reach any other file.
 */
export const ASSETS: Record<string, { file: string; type: string }> = {
  '/webview.js': { file: 'webview.js', type: 'text/javascript; charset=utf-8' },
  '/webview.css': { file: 'webview.css', type: 'text/css; charset=utf-8' },
  // Source maps: served only when the (development) build wrote them.
  '/webview.js.map': { file: 'webview.js.map', type: 'application/json; charset=utf-8' },
  '/webview.css.map': { file: 'webview.css.map', type: 'application/json; charset=utf-8' },
};

/**
 * Where the bundle is: dist/webview/. The CLI runs as dist/cli.mjs or one of its lazy chunks (all in dist/
 * itself, so `__dirname` — set by the esbuild banner — is dist/); from source (tsx) this file is src/cli/ui/,
 * three levels below the repository. The first folder that holds webview.js wins; else the first candidate, so the error
 * names where we looked.
 */
export function locateAssetsDir(): string {
  const candidates = [join(__dirname, 'webview'), resolve(__dirname, '..', '..', '..', 'dist', 'webview')];
  return candidates.find((d) => existsSync(join(d, 'webview.js'))) ?? candidates[0]!;
}

/** Streams one asset; 404 for an optional map that is not there, a clear 500 when the bundle was never built. */
export function serveAsset(res: ServerResponse, dir: string, pathname: string, send: (status: number, text: string) => void): void {
  const asset = ASSETS[pathname]!;
  const path = join(dir, asset.file);
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new Error('not a file');
    size = st.size;
  } catch {
    if (asset.file.endsWith('.map')) return send(404, 'not found');
    return send(500, `the console bundle is missing: ${path} does not exist. Build it with \`node esbuild.mjs\` (or \`npm run build\`).`);
  }
  res.writeHead(200, { 'Content-Type': asset.type, 'Content-Length': String(size) });
  const stream = createReadStream(path);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}
