// Which onnxruntime computes the embeddings. onnxruntime-node (N-API, native CPU kernels) is several times faster
// than onnxruntime-web (WASM) — bench/embedRuntime.ts — but its binary exists only for the platforms the npm
// package ships (linux/darwin/win32 × x64/arm64) and only where the package (or a per-platform .vsix) carries it.
// So: native where its binary is present and loads, WASM everywhere else; `K0MARU_EMBED_RUNTIME` forces one.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type * as OrtApi from 'onnxruntime-common';
import { K0Error } from '../errors';

export type RuntimeName = 'native' | 'wasm';
export type RuntimeChoice = RuntimeName | 'auto';

export interface OrtRuntime {
  name: RuntimeName;
  /** The onnxruntime API (InferenceSession, Tensor, env): onnxruntime-common as the chosen package exports it. */
  ort: typeof OrtApi;
  /** Execution provider to ask for by name: both packages register into one onnxruntime-common registry. */
  executionProviders: string[];
}

declare const __K0MARU_BUNDLED__: boolean | undefined;
const bundled = (): boolean => typeof __K0MARU_BUNDLED__ !== 'undefined' && __K0MARU_BUNDLED__;

export const NATIVE_BINDING = 'onnxruntime_binding.node';

/** Folder name of a platform's native binary beside the bundle: dist/ort-native/<platform>-<arch>/ (esbuild.mjs copies it). */
export const nativeFolderName = (platform: string = process.platform, arch: string = process.arch): string => `${platform}-${arch}`;

/** `K0MARU_EMBED_RUNTIME`: wasm | native | auto (unset). Anything else is a coded error, not a silent default. */
export function requestedRuntime(env: NodeJS.ProcessEnv = process.env): RuntimeChoice {
  const v = (env.K0MARU_EMBED_RUNTIME ?? '').trim().toLowerCase();
  if (v === '' || v === 'auto') return 'auto';
  if (v === 'wasm' || v === 'native') return v;
  throw new K0Error('INVALID_ARGUMENT', `K0MARU_EMBED_RUNTIME must be wasm, native or auto, not ${JSON.stringify(env.K0MARU_EMBED_RUNTIME)}`);
}

/**
 * Where this platform's onnxruntime-node binary is, or undefined when it is not shipped here. A bundle looks
 * beside itself only (a package never has node_modules); sources look in node_modules/onnxruntime-node.
 */
export function nativeBinaryDir(): string | undefined {
  const candidates: string[] = [];
  if (bundled()) candidates.push(join(__dirname, 'ort-native', nativeFolderName()));
  else {
    try {
      candidates.push(join(require.resolve('onnxruntime-node/package.json').replace(/package\.json$/, ''), 'bin', 'napi-v6', process.platform, process.arch));
    } catch {
      // not installed (an install without optional binaries): WASM it is
    }
  }
  return candidates.find((d) => existsSync(join(d, NATIVE_BINDING)));
}

let nativeCache: { ort?: typeof OrtApi; error?: string } | undefined;
/** onnxruntime-web was required in this thread (see loadNative: order matters). */
let webLoaded = false;

/** Loads onnxruntime-node once per thread; the reason it failed is kept, so it is said once and never thrown twice. */
function loadNative(): { ort?: typeof OrtApi; error?: string } {
  if (nativeCache) return nativeCache;
  const dir = nativeBinaryDir();
  if (!dir) return (nativeCache = { error: `no onnxruntime-node binary for ${nativeFolderName()} in this install` });
  // Both packages register into one onnxruntime-common, and its registerBackend keeps the first "cpu" backend
  // when a later one has a higher priority (1.30). Loaded after onnxruntime-web, onnxruntime-node's "cpu" would
  // silently run on WASM: refuse instead (the worker never does this; a test or bench process might).
  if (webLoaded) return (nativeCache = { error: 'onnxruntime-web was loaded first in this thread (its "cpu" backend would shadow the native one)' });
  try {
    // In a bundle, esbuild.mjs points the package's binding require at dist/ort-native/<platform>-<arch>/.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    nativeCache = { ort: require('onnxruntime-node') as typeof OrtApi };
  } catch (err) {
    nativeCache = { error: `onnxruntime-node did not load from ${dir}: ${(err as Error).message ?? err}` };
  }
  return nativeCache;
}

function wasmRuntime(): OrtRuntime {
  webLoaded = true;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return { name: 'wasm', ort: require('onnxruntime-web') as typeof OrtApi, executionProviders: ['wasm'] };
}

export interface RuntimeSelection {
  runtime: OrtRuntime;
  /** Set when native was wanted (auto) but WASM is used: why, for the log. Absent when no native binary is shipped. */
  fallbackReason?: string;
}

/**
 * The runtime to use. `auto`: native if its binary is here and loads, else WASM (with the reason when a binary
 * was present but failed). A forced choice that cannot be met is MODEL_UNAVAILABLE, never a silent substitute.
 */
export function selectRuntime(choice: RuntimeChoice = requestedRuntime()): RuntimeSelection {
  if (choice === 'wasm') return { runtime: wasmRuntime() };
  const native = loadNative();
  if (native.ort) return { runtime: { name: 'native', ort: native.ort, executionProviders: ['cpu'] } };
  if (choice === 'native') throw new K0Error('MODEL_UNAVAILABLE', `K0MARU_EMBED_RUNTIME=native but ${native.error}`, { reason: 'native-runtime' });
  // No binary shipped for this platform is the expected case of a generic package: not worth a log line.
  const shipped = nativeBinaryDir() !== undefined;
  return { runtime: wasmRuntime(), fallbackReason: shipped ? native.error : undefined };
}

/** Test hook: forget the cached native load (a test that changes what is on disk). */
export function resetNativeRuntimeForTest(): void {
  nativeCache = undefined;
}
