import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Who may talk to `k0maru ui`. The server is bound to loopback, but that alone is not enough: any web page the
 * user has open can make the browser send requests to 127.0.0.1, and a DNS-rebinding page can even make them
 * same-origin under its own host name. So every request must
 *  - name us in its Host header (127.0.0.1:<port> or localhost:<port>): a rebinding page's requests carry its
 *    own host name there;
 *  - carry no Origin, or ours: a cross-site fetch or form post carries the attacker's;
 *  - carry the per-run token (X-K0maru-Token header, or ?token= where a header cannot be set: asset URLs,
 *    EventSource), which only the printed URL knows.
 */
export const TOKEN_HEADER = 'x-k0maru-token';

/** 24 random bytes, base64url (32 characters): new for every run, so an old URL stops working. */
export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** A fresh CSP nonce per page (crypto, never Math.random). */
export function newNonce(): string {
  return randomBytes(18).toString('base64');
}

export type Denial = { status: 403; reason: string };

export class AccessPolicy {
  private readonly token: Buffer;
  private readonly hosts: Set<string>;
  private readonly origins: Set<string>;

  constructor(token: string, port: number) {
    this.token = Buffer.from(token, 'utf8');
    this.hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
    this.origins = new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
  }

  /** undefined when the request may proceed; otherwise why not (logged, and answered as a short 403 text). */
  check(req: IncomingMessage, url: URL): Denial | undefined {
    const host = (req.headers.host ?? '').toLowerCase();
    if (!this.hosts.has(host)) return { status: 403, reason: `Host ${JSON.stringify(host.slice(0, 100))} is not this server (DNS rebinding?)` };
    const origin = req.headers.origin;
    if (origin !== undefined && !this.origins.has(origin.toLowerCase())) {
      return { status: 403, reason: `Origin ${JSON.stringify(origin.slice(0, 100))} may not use this server` };
    }
    const header = req.headers[TOKEN_HEADER];
    const given = typeof header === 'string' ? header : url.searchParams.get('token');
    if (!given) return { status: 403, reason: 'missing token: open the URL `k0maru ui` printed' };
    if (!this.tokenMatches(given)) return { status: 403, reason: 'wrong token: open the URL this run of `k0maru ui` printed' };
    return undefined;
  }

  private tokenMatches(given: string): boolean {
    const g = Buffer.from(given, 'utf8');
    // timingSafeEqual needs equal lengths; the token's length is no secret (always 32 characters).
    return g.length === this.token.length && timingSafeEqual(g, this.token);
  }
}
