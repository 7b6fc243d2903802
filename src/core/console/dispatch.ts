import { errorMessage, parseClientMessage, PROTOCOL_VERSION, type HelloMessage, type HostMessage } from '../../shared/protocol';
import { toK0Error } from '../errors';
import type { ConsoleService } from './service';

export interface DispatchContext {
  service: ConsoleService;
  hello: Omit<HelloMessage, 'kind' | 'protocol'>;
  /** The host's log; invalid messages and failures are written here, never thrown. */
  log(level: 'info' | 'warn' | 'error', message: string): void;
}

/**
 * One inbound page message → the one host message that answers it (hello for ready, a response for a request),
 * or an error response when the message is invalid. Both hosts call this: the protocol lives in one place.
 */
export async function dispatchClientMessage(ctx: DispatchContext, raw: unknown): Promise<HostMessage> {
  const parsed = parseClientMessage(raw);
  if (!parsed.ok) {
    ctx.log('warn', `console: rejected a message: ${parsed.error}`);
    const r = raw as { id?: unknown; request?: { method?: unknown } } | null;
    const id = r && typeof r.id === 'number' && Number.isInteger(r.id) ? r.id : -1;
    const method = r && r.request && typeof r.request.method === 'string' ? r.request.method.slice(0, 40) : 'unknown';
    return errorMessage(id, method, { code: 'INVALID_ARGUMENT', message: `invalid console message: ${parsed.error}` });
  }
  const msg = parsed.message;
  if (msg.kind === 'ready') {
    if (msg.protocol !== PROTOCOL_VERSION) ctx.log('warn', `console: page speaks protocol ${msg.protocol}, host ${PROTOCOL_VERSION}`);
    return { kind: 'hello', protocol: PROTOCOL_VERSION, ...ctx.hello };
  }
  const { id, request } = msg;
  try {
    const result = await ctx.service.handle(request);
    return { kind: 'response', id, ok: true, method: request.method, result } as HostMessage;
  } catch (err) {
    const e = toK0Error(err);
    if (e.code === 'INTERNAL') ctx.log('error', `console: ${request.method} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return errorMessage(id, request.method, { code: e.code, message: e.message });
  }
}
