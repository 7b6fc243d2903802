import type { ServerResponse } from 'node:http';
import { extname, sep } from 'node:path';
import type { HostMessage } from '../../shared/protocol';
import type { VaultPaths } from '../../core/vault/paths';
import { LEDGER_FILE } from '../../core/offload/store';
import { watchFolder, type FolderWatch } from './watch';
import { noteSources } from '../../core/vault/noteSources';

type ConsoleEvent = Extract<HostMessage, { kind: 'event' }>['event'];

function noteFolders(paths: VaultPaths): string[] {
  try {
    return noteSources(paths).map((src) => src.root);
  } catch {
    return [paths.notesRoot]; // a bad `sources` entry is reported by the scan; the page still follows the vault
  }
}

/** A comment line every 15 s keeps proxies and the browser from timing an idle stream out. */
export const KEEPALIVE_MS = 15_000;

/**
 * GET /events: Server-Sent Events. Each `data:` line is one HostMessage of kind 'event'; the page re-asks what
 * it shows. Changes are seen with fs.watch on the ledger's folder and on the notes, debounced.
 */
export class EventHub {
  private readonly clients = new Set<ServerResponse>();
  private readonly watches: FolderWatch[];
  private readonly keepalive: NodeJS.Timeout;

  constructor(paths: VaultPaths, log: (level: 'info' | 'warn' | 'error', message: string) => void) {
    this.watches = [
      watchFolder({ dir: paths.refsDir, filter: (n) => n === undefined || n === LEDGER_FILE, onChange: () => this.broadcast('ledgerChanged'), log }),
      // The vault and the repository's ADR folders read in place (src/core/vault/noteSources.ts).
      ...noteFolders(paths).map((dir) =>
        watchFolder({
          dir,
          recursive: true,
          // Notes only: editors' swap files, .obsidian/ settings and the index beside a bound vault are not notes.
          filter: (n) => n === undefined || (extname(n).toLowerCase() === '.md' && !n.split(sep).some((part) => part.startsWith('.'))),
          onChange: () => this.broadcast('vaultChanged'),
          log,
        }),
      ),
    ];
    this.keepalive = setInterval(() => {
      for (const res of this.clients) res.write(': keep-alive\n\n');
    }, KEEPALIVE_MS);
    this.keepalive.unref();
  }

  /** Holds the response open as an event stream until the page goes away or the server stops. */
  attach(res: ServerResponse): void {
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    // `retry` paces the browser's reconnects; the comment makes the stream "open" on the page right away.
    res.write('retry: 2000\n: connected\n\n');
    this.clients.add(res);
    res.on('close', () => this.clients.delete(res));
  }

  broadcast(event: ConsoleEvent): void {
    const message: HostMessage = { kind: 'event', event };
    const frame = `data: ${JSON.stringify(message)}\n\n`;
    for (const res of this.clients) res.write(frame);
  }

  get size(): number {
    return this.clients.size;
  }

  close(): void {
    clearInterval(this.keepalive);
    for (const w of this.watches) w.close();
    for (const res of this.clients) res.end();
    this.clients.clear();
  }
}
