/**
 * The page's one link to its host. Two transports behind one interface, chosen by `body[data-host]`:
 *  - VS Code: acquireVsCodeApi().postMessage out, window 'message' events in;
 *  - browser (`k0maru ui`): POST /rpc (token in the X-K0maru-Token header) answered by one HostMessage, and an
 *    EventSource on /events (token in the query: EventSource cannot send headers) for pushed events.
 * The ConsoleClient on top validates every inbound message with the shared schema, matches responses to
 * requests by id and method, and gives each request a deadline.
 */
import {
  parseHostMessage, PROTOCOL_VERSION,
  type ClientMessage, type ConsoleMethod, type HelloMessage, type HostMessage, type ParamsOf, type ProtocolError, type ResultOf,
} from '../src/shared/protocol';

export interface Transport {
  /** Sends one message; rejects only when the message could not be delivered (the browser's fetch failed). */
  send(message: ClientMessage): Promise<void>;
  /** Every raw inbound message (unvalidated: the client validates). */
  listen(onMessage: (raw: unknown) => void, onFailure: (message: string) => void): void;
}

interface VsCodeApi { postMessage(message: unknown): void }
declare function acquireVsCodeApi(): VsCodeApi;

function vscodeTransport(): Transport {
  const api = acquireVsCodeApi(); // may be called once per page: this is the only call
  return {
    send: async (message) => api.postMessage(message),
    listen: (onMessage) => window.addEventListener('message', (e: MessageEvent) => onMessage(e.data)),
  };
}

function browserTransport(token: string): Transport {
  let deliver: (raw: unknown) => void = () => {};
  return {
    async send(message) {
      let res: Response;
      try {
        res = await fetch('/rpc', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'X-K0maru-Token': token },
          body: JSON.stringify(message),
        });
      } catch (e) {
        throw new Error(`cannot reach the console server (${e instanceof Error ? e.message : String(e)}): is \`k0maru ui\` still running?`);
      }
      if (!res.ok) throw new Error(`the console server answered HTTP ${res.status} to /rpc`);
      deliver(await res.json());
    },
    listen(onMessage, onFailure) {
      deliver = onMessage;
      const events = new EventSource(`/events?token=${encodeURIComponent(token)}`);
      events.onmessage = (e) => {
        try {
          onMessage(JSON.parse(e.data as string));
        } catch {
          onFailure('the console server sent an event that is not JSON');
        }
      };
      // EventSource reconnects by itself; only a closed stream (the server refused it) is worth a banner.
      events.onerror = () => {
        if (events.readyState === EventSource.CLOSED) onFailure('lost the live update stream (/events); reload the page');
      };
    },
  };
}

export function createTransport(body: HTMLElement): Transport {
  const host = body.dataset.host;
  if (host === 'vscode') return vscodeTransport();
  if (host === 'browser') {
    const token = body.dataset.token;
    if (!token) throw new Error('the page has no token (body[data-token]); open the URL `k0maru ui` printed');
    return browserTransport(token);
  }
  throw new Error(`unknown console host ${JSON.stringify(host)} (body[data-host] must be vscode or browser)`);
}

/** A request the host answered with ok: false, or one that never got an answer. */
export class RequestError extends Error {
  constructor(readonly code: ProtocolError['code'] | 'TIMEOUT' | 'TRANSPORT', message: string) {
    super(message);
  }
}

interface Pending {
  method: ConsoleMethod;
  resolve(result: unknown): void;
  reject(err: RequestError): void;
  timer: ReturnType<typeof setTimeout>;
}

export const REQUEST_TIMEOUT_MS = 30_000;

export class ConsoleClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private helloWaiter?: { resolve(h: HelloMessage): void; reject(e: Error): void };
  private readonly eventHandlers: ((event: Extract<HostMessage, { kind: 'event' }>['event']) => void)[] = [];
  private readonly helloHandlers: ((hello: HelloMessage) => void)[] = [];
  private ready?: Promise<HelloMessage>;

  /** `onFailure` is the host banner: timeouts, transport failures and messages that break the protocol. */
  constructor(private readonly transport: Transport, private readonly onFailure: (message: string) => void) {
    transport.listen((raw) => this.receive(raw), onFailure);
  }

  /** The handshake: `ready` out, `hello` back. Requests wait for it. */
  hello(): Promise<HelloMessage> {
    this.ready ??= new Promise<HelloMessage>((resolve, reject) => {
      const timer = setTimeout(() => reject(new RequestError('TIMEOUT', `the host did not answer the handshake within ${REQUEST_TIMEOUT_MS / 1000} s`)), REQUEST_TIMEOUT_MS);
      this.helloWaiter = {
        resolve: (h) => { clearTimeout(timer); resolve(h); },
        reject: (e) => { clearTimeout(timer); reject(e); },
      };
      this.transport.send({ kind: 'ready', protocol: PROTOCOL_VERSION }).catch((e: unknown) => this.helloWaiter?.reject(asTransportError(e)));
    });
    return this.ready;
  }

  onEvent(handler: (event: Extract<HostMessage, { kind: 'event' }>['event']) => void): void {
    this.eventHandlers.push(handler);
  }

  /** Every hello, including the ones a host sends again when its vault changed (opened, trusted). */
  onHello(handler: (hello: HelloMessage) => void): void {
    this.helloHandlers.push(handler);
  }

  async request<M extends ConsoleMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    await this.hello();
    const id = this.nextId++;
    return new Promise<ResultOf<M>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        const err = new RequestError('TIMEOUT', `${method} got no answer within ${REQUEST_TIMEOUT_MS / 1000} s`);
        this.onFailure(err.message);
        reject(err);
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { method, resolve: resolve as (r: unknown) => void, reject, timer });
      const message = { kind: 'request', id, request: { method, params } } as ClientMessage;
      this.transport.send(message).catch((e: unknown) => {
        const p = this.pending.get(id);
        if (!p) return;
        this.settle(id);
        const err = asTransportError(e);
        this.onFailure(err.message);
        p.reject(err);
      });
    });
  }

  private settle(id: number): Pending | undefined {
    const p = this.pending.get(id);
    if (p) {
      clearTimeout(p.timer);
      this.pending.delete(id);
    }
    return p;
  }

  private receive(raw: unknown): void {
    const parsed = parseHostMessage(raw);
    if (!parsed.ok) {
      this.onFailure(`the host sent an invalid message (${parsed.error})`);
      return;
    }
    const msg = parsed.message;
    if (msg.kind === 'hello') {
      this.helloWaiter?.resolve(msg);
      for (const handler of this.helloHandlers) handler(msg);
      return;
    }
    if (msg.kind === 'event') {
      for (const handler of this.eventHandlers) handler(msg.event);
      return;
    }
    const p = this.pending.get(msg.id);
    // A late answer to a request that timed out is dropped; one whose method differs breaks the protocol.
    if (!p) return;
    if (p.method !== msg.method) {
      this.settle(msg.id);
      const err = new RequestError('TRANSPORT', `the host answered request ${msg.id} (${p.method}) as ${msg.method}`);
      this.onFailure(err.message);
      p.reject(err);
      return;
    }
    this.settle(msg.id);
    if (msg.ok) p.resolve(msg.result);
    else p.reject(new RequestError(msg.error.code, msg.error.message));
  }
}

function asTransportError(e: unknown): RequestError {
  return new RequestError('TRANSPORT', e instanceof Error ? e.message : String(e));
}
