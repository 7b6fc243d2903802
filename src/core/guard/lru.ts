/**
 * A Map with a size cap that drops the least recently used entry. Host-lifetime memos (the MCP server and the
 * editor keep one process for days, and every ADR edit makes new rule keys) must not grow without bound.
 */
export class LruMap<K, V> {
  private readonly map = new Map<K, V>();

  /** `onEvict` frees what an entry holds outside the JS heap (RE2 objects live in WASM memory). */
  constructor(
    readonly capacity: number,
    private readonly onEvict?: (value: V, key: K) => void,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`LruMap capacity must be a positive integer, got ${capacity}`);
  }

  get size(): number {
    return this.map.size;
  }

  /** Returns the value and marks it most recently used. */
  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v === undefined) return undefined;
    // Map keeps insertion order: re-inserting moves the key to the young end.
    this.map.delete(key);
    this.map.set(key, v);
    return v;
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  set(key: K, value: V): void {
    if (this.map.has(key)) this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.capacity) {
      const [oldKey, oldValue] = this.map.entries().next().value as [K, V];
      this.map.delete(oldKey);
      this.onEvict?.(oldValue, oldKey);
    }
  }

  clear(): void {
    for (const [k, v] of this.map) this.onEvict?.(v, k);
    this.map.clear();
  }
}
