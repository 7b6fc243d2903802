import { createXXHash3, type IHasher } from 'hash-wasm';

let hasher: IHasher | undefined;

/** Loads the xxh3 WASM once; afterwards hashing is synchronous. */
export async function loadHasher(): Promise<(data: Uint8Array | string) => string> {
  hasher ??= await createXXHash3();
  const h = hasher;
  return (data) => h.init().update(data).digest('hex');
}
