import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { once } from 'node:events';
import { K0Error } from '../errors';
import { MODEL_FILES, parseModelConfig, readModelFolder, type ModelConfig } from './modelConfig';

export interface InstallProgress {
  file: string;
  received: number;
  /** Bytes expected, when the server or file system says. */
  total?: number;
}

export interface InstallOptions {
  /** Where models live (one folder per model id); see defaultModelsRoot. */
  modelsRoot: string;
  /** Pins k0model.json itself: its sha256 must equal this (the file then pins the others). */
  sha256?: string;
  onProgress?: (p: InstallProgress) => void;
  signal?: AbortSignal;
}

export interface InstallResult {
  id: string;
  dir: string;
  config: ModelConfig;
  bytes: number;
  /** True when a model with this id was already installed and has been replaced. */
  replaced: boolean;
}

/** Per-user models folder: $K0MARU_MODELS_DIR, else ~/.k0maru/models. Models are large; projects share them. */
export function defaultModelsRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.K0MARU_MODELS_DIR ? resolve(env.K0MARU_MODELS_DIR) : join(homedir(), '.k0maru', 'models');
}

const isUrl = (s: string) => /^https?:\/\//i.test(s);

/** Copies or downloads one file into `dest`, hashing as it goes; returns its sha256 and size. */
async function fetchFile(source: string, name: string, dest: string, opts: InstallOptions): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  const out = createWriteStream(dest);
  let received = 0;
  let total: number | undefined;
  const write = async (chunk: Uint8Array) => {
    hash.update(chunk);
    received += chunk.length;
    if (!out.write(chunk)) await once(out, 'drain');
    opts.onProgress?.({ file: name, received, total });
  };
  try {
    if (isUrl(source)) {
      const url = new URL(name, source.endsWith('/') ? source : `${source}/`).href;
      let res: Response;
      try {
        res = await fetch(url, { signal: opts.signal, redirect: 'follow' });
      } catch (err) {
        throw new K0Error('IO_ERROR', `download of ${url} failed: ${(err as Error).message}`, { url });
      }
      if (!res.ok || !res.body) throw new K0Error('IO_ERROR', `download of ${url} failed: HTTP ${res.status}`, { url, status: res.status });
      const len = Number(res.headers.get('content-length'));
      total = Number.isFinite(len) && len > 0 ? len : undefined;
      const reader = res.body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          await write(value);
        }
      } catch (err) {
        throw new K0Error('IO_ERROR', `download of ${url} was interrupted after ${received} bytes: ${(err as Error).message}`, { url });
      }
      if (total !== undefined && received !== total) throw new K0Error('IO_ERROR', `download of ${url} is truncated: ${received} of ${total} bytes`, { url });
    } else {
      const path = join(source, name);
      if (!existsSync(path)) throw new K0Error('MODEL_UNAVAILABLE', `${path} is missing`, { path });
      total = statSync(path).size;
      for await (const chunk of createReadStream(path)) await write(chunk as Buffer);
    }
  } finally {
    out.end();
    await once(out, 'close');
  }
  return { sha256: hash.digest('hex'), bytes: received };
}

/**
 * Installs a model folder from a URL (http/https, a folder served as model.onnx, tokenizer.json, k0model.json)
 * or a local folder. Everything lands in a staging folder first; only when every file is present and matches
 * the sha256 listed in k0model.json is the folder renamed into place. Any failure leaves the installed models
 * exactly as they were.
 */
export async function installModel(source: string, opts: InstallOptions): Promise<InstallResult> {
  const src = isUrl(source) ? source : resolve(source);
  if (!isUrl(src) && !(existsSync(src) && statSync(src).isDirectory())) throw new K0Error('INVALID_ARGUMENT', `not a URL or a model folder: ${source}`);
  mkdirSync(opts.modelsRoot, { recursive: true });
  const staging = join(opts.modelsRoot, `.staging-${randomBytes(6).toString('hex')}`);
  mkdirSync(staging);
  try {
    const manifest = await fetchFile(src, 'k0model.json', join(staging, 'k0model.json'), opts);
    if (opts.sha256 && manifest.sha256 !== opts.sha256.toLowerCase()) {
      throw new K0Error('MODEL_UNAVAILABLE', `k0model.json checksum mismatch: expected ${opts.sha256}, got ${manifest.sha256}`, { reason: 'checksum' });
    }
    const config = parseModelConfig(readFileSync(join(staging, 'k0model.json'), 'utf8'), src);
    const files = config.files ?? {};
    let bytes = manifest.bytes;
    for (const name of MODEL_FILES.filter((f) => f !== 'k0model.json')) {
      const expected = files[name];
      if (!expected) throw new K0Error('MODEL_UNAVAILABLE', `k0model.json lists no sha256 for ${name}: refusing to install an unverifiable model`, { reason: 'checksum' });
      const got = await fetchFile(src, name, join(staging, name), opts);
      if (got.sha256 !== expected) throw new K0Error('MODEL_UNAVAILABLE', `${name} checksum mismatch: expected ${expected}, got ${got.sha256}`, { reason: 'checksum', file: name });
      bytes += got.bytes;
    }
    readModelFolder(staging); // the same checks a load does
    const dir = join(opts.modelsRoot, config.id);
    if (isAbsolute(config.id) || !resolve(dir).startsWith(resolve(opts.modelsRoot))) throw new K0Error('PATH_OUTSIDE_VAULT', `model id ${config.id} escapes the models folder`);
    const replaced = existsSync(dir);
    // Swap with two renames: the old folder is moved aside first and restored if the second rename fails.
    const aside = `${staging}-old`;
    if (replaced) renameSync(dir, aside);
    try {
      renameSync(staging, dir);
    } catch (err) {
      if (replaced) renameSync(aside, dir);
      throw err;
    }
    if (replaced) rmSync(aside, { recursive: true, force: true });
    return { id: config.id, dir, config, bytes, replaced };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** The models in a models folder that pass the folder check (config readable, files present). */
export function listInstalledModels(modelsRoot: string): { id: string; dir: string; config: ModelConfig }[] {
  if (!existsSync(modelsRoot)) return [];
  const out: { id: string; dir: string; config: ModelConfig }[] = [];
  for (const name of readdirSync(modelsRoot)) {
    if (name.startsWith('.')) continue;
    try {
      const { dir, config } = readModelFolder(join(modelsRoot, name));
      out.push({ id: config.id, dir, config });
    } catch {
      // a broken folder is reported by `model info`, not listed as usable
    }
  }
  return out.sort((a, b) => a.id.localeCompare(b.id));
}
