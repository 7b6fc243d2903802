/**
 * The requests the SDK server has received and not yet answered, so a server whose stdin closed exits once every
 * request it was sent is answered — a condition, not a pause: on a loaded machine the last call of a client that
 * writes it and closes stdin at once may take any time to be dispatched (a fixed 100 ms wait lost such calls).
 * A request the client cancels (notifications/cancelled) gets no answer by the protocol and is forgotten.
 */
type JsonRpcMessage = { id?: unknown; method?: unknown; params?: { requestId?: unknown } };

const keyOf = (id: unknown) => `${typeof id}:${String(id)}`;

export class RequestLedger {
  private readonly open = new Map<string, number>();
  private waiters: (() => void)[] = [];

  /** A message from the client. */
  received(message: unknown): void {
    const m = message as JsonRpcMessage;
    if (typeof m !== 'object' || m === null) return;
    if (m.method === 'notifications/cancelled' && m.params?.requestId !== undefined) this.forget(keyOf(m.params.requestId));
    else if (typeof m.method === 'string' && m.id !== undefined && m.id !== null) this.open.set(keyOf(m.id), (this.open.get(keyOf(m.id)) ?? 0) + 1);
  }

  /** A message to the client: a response (an id and no method) settles its request. */
  sent(message: unknown): void {
    const m = message as JsonRpcMessage;
    if (typeof m !== 'object' || m === null || m.method !== undefined || m.id === undefined) return;
    this.forget(keyOf(m.id));
  }

  /** Resolves once no received request is unanswered. */
  answered(): Promise<void> {
    return this.open.size ? new Promise((resolve) => this.waiters.push(resolve)) : Promise.resolve();
  }

  private forget(key: string): void {
    const n = this.open.get(key);
    if (n === undefined) return;
    if (n > 1) this.open.set(key, n - 1);
    else this.open.delete(key);
    if (!this.open.size) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
    }
  }
}
