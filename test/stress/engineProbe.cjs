// Preloaded (NODE_OPTIONS=--require) into a CLI run by lib.ts's engineOf(): reports on stderr at exit whether the
// process loaded node:sqlite and how many WASM modules it compiled, so a "mixed" run proves which engine ran.
const get = process.getBuiltinModule;
let native = false;
if (typeof get === 'function') {
  process.getBuiltinModule = function (id) {
    const m = get.call(process, id);
    if (id === 'node:sqlite' && m) native = true;
    return m;
  };
}
let wasm = 0;
const Module = WebAssembly.Module;
WebAssembly.Module = function (bytes) {
  wasm++;
  return new Module(bytes);
};
process.on('exit', () => process.stderr.write(`k0-engine-probe native=${native} wasmModules=${wasm}\n`));
