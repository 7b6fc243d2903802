
/**
 * How the WASM engines we ship (SQLite: ~1.3 MB of WASM, RE2) are compiled. V8 compiles WASM with its baseline
 * compiler (Liftoff) and then recompiles every hot function with TurboFan. For SQLite that tier-up is the largest
 * fixed cost of a one-shot process on this 2-core machine: a clean `k0maru scan` of 500 notes spent ~0.3 s CPU with
 * it and ~0.15 s without, and even a cold 5,000-note index finished sooner on Liftoff code alone (1.8 vs 2.3 s CPU;
 * bench/startCost.ts). A long-lived host is another matter — it pays the tier-up once and runs faster code for
 * hours — so only a one-shot entry point (the CLI) opts in, and only the modules compiled inside
 * `compileWasmQuickly` are affected: V8 reads the flag when it compiles a module, and it is set back at once, so
 * WASM compiled later (the ONNX embedder) tiers up as usual.
 *
 * Node 20 offers no cache for compiled WASM across processes nor `module.enableCompileCache` (Node ≥ 22.1), so
 * the compile itself cannot be skipped here; skipping the tier-up is what the runtime allows.
 */
let quick = false;

/**
 * Called by a one-shot process before it opens the index. `K0MARU_WASM_TIERUP=1` keeps V8's default (for
 * comparison, or a very long CLI run); a `--liftoff-only` / `--no-liftoff-only` chosen on the command line wins.
 */
export function preferQuickWasmStart(env: NodeJS.ProcessEnv = process.env): void {
  const chosen = [...process.execArgv, env.NODE_OPTIONS ?? ''].some((a) => /liftoff/.test(a));
  quick = env.K0MARU_WASM_TIERUP !== '1' && !chosen;
}

/** Whether modules compiled through `compileWasmQuickly` skip the TurboFan tier-up in this process. */
export function quickWasmStart(): boolean {
  return quick;
}

/** Runs `load` (which compiles a WASM module synchronously, e.g. a require) with tier-up off when the process opted in. */
export function compileWasmQuickly<T>(load: () => T): T {
  if (!quick) return load();
  // node:v8 is required here, not imported at the top: loading it costs a one-shot command ~5 ms (heap utils,
  // serdes, profiler bindings) even when it compiles no WASM at all (a hook that meets no RE2 rule).
  const { setFlagsFromString } = require('node:v8') as typeof import('node:v8');
  setFlagsFromString('--liftoff-only');
  try {
    return load();
  } finally {
    setFlagsFromString('--no-liftoff-only');
  }
}
