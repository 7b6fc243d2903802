import * as vscode from 'vscode';
import { basename } from 'node:path';
import type { ConsolePorts, ConsoleService } from '../../core/console/service';
import type { HostMessage } from '../../shared/protocol';
import { PROTOCOL_VERSION } from '../../shared/protocolVersion';
import type { ConsoleInfo, ConsoleStats } from '../api';
import { loadConsole, type ConsoleCore } from '../coreLoader';
import type { VaultSession } from '../vaultSession';
import { openNoteInEditor } from './openNote';
import { consoleHtml, webviewOptions, type ConsoleLayout } from './webviewHtml';

export interface ConsoleHostDeps {
  extensionUri: vscode.Uri;
  log: vscode.LogOutputChannel;
  version: string;
  /** The opened vault; undefined when the workspace has none (yet). */
  session(): VaultSession | undefined;
}

type PushedEvent = Extract<HostMessage, { kind: 'event' }>['event'];
interface Page {
  webview: vscode.Webview;
  layout: ConsoleLayout;
}

/** Bursts of file events (a scan, a ledger append) reach the page as one event. */
const EVENT_COALESCE_MS = 150;

/**
 * The host end of every open console page (the panel and the sidebar view): it renders the page, answers each
 * message through the core's dispatcher (one protocol implementation for both hosts) and pushes change events.
 * The core side (zod, the console use cases) loads on the first message, not at activation.
 *
 * No vault or Restricted Mode: the page still gets its `hello` (so it can show itself), and every request fails
 * with VAULT_NOT_FOUND and a message saying what to do; the console reads the index, which an untrusted
 * workspace must not have written.
 */
export class ConsoleHost implements vscode.Disposable {
  private readonly pages = new Set<Page>();
  private readonly timers = new Map<PushedEvent, NodeJS.Timeout>();
  private readonly stats: ConsoleStats = { pages: 0, hellos: 0, vaultNames: {}, answered: {}, failed: 0, events: 0 };
  private readonly helloWaiters: { layout?: ConsoleLayout; resolve(info: ConsoleInfo): void }[] = [];
  private lastHello = new Map<ConsoleLayout, ConsoleInfo>();
  /** Kept across messages (a service is built per message): where big raw logs' lines start. */
  private checkpoints: InstanceType<ConsoleCore['LineCheckpoints']> | undefined;
  /** The pages hear of the background fill of this session's host (another vault: another subscription). */
  private embedding: { session: VaultSession; sub: vscode.Disposable } | undefined;

  constructor(private readonly deps: ConsoleHostDeps) {}

  /** Renders the console into a webview and answers its messages until the returned disposable runs. */
  attach(webview: vscode.Webview, layout: ConsoleLayout): vscode.Disposable {
    const page: Page = { webview, layout };
    webview.options = webviewOptions(this.deps.extensionUri);
    webview.html = consoleHtml(webview, this.deps.extensionUri, layout);
    const sub = webview.onDidReceiveMessage((raw: unknown) => void this.answer(page, raw));
    this.pages.add(page);
    this.stats.pages++;
    return { dispose: () => { sub.dispose(); this.pages.delete(page); } };
  }

  /** Tells every open page that what it shows may have changed (it re-asks). */
  notify(event: PushedEvent): void {
    if (!this.pages.size || this.timers.has(event)) return;
    this.timers.set(event, setTimeout(() => {
      this.timers.delete(event);
      this.stats.events++;
      for (const p of this.pages) {
        // A changed vault may be a different vault (opened, trusted): the page's header says which.
        if (event === 'vaultChanged') {
          const hello = this.hello(p.layout);
          void this.post(p, hello).then((delivered) => delivered && this.count(p.layout, hello));
        }
        void this.post(p, { kind: 'event', event });
      }
    }, EVENT_COALESCE_MS));
  }

  /** Resolves with the hello of the next (or the last) page of this layout that completed the handshake. */
  whenReady(layout?: ConsoleLayout): Promise<ConsoleInfo> {
    const known = layout ? this.lastHello.get(layout) : [...this.lastHello.values()].at(-1);
    if (known) return Promise.resolve(known);
    return new Promise((resolve) => this.helloWaiters.push({ layout, resolve }));
  }

  snapshot(): ConsoleStats {
    return { ...this.stats, vaultNames: { ...this.stats.vaultNames }, answered: { ...this.stats.answered } };
  }

  private async answer(page: Page, raw: unknown): Promise<void> {
    let reply: HostMessage;
    try {
      const core = loadConsole();
      reply = await core.dispatchClientMessage({
        service: this.service(core, page.layout),
        hello: this.helloFields(page.layout),
        log: (level, message) => this.deps.log[level](message),
      }, raw);
    } catch (err) {
      // Only a broken bundle gets here (the dispatcher answers every failure itself): tell the page, once.
      this.deps.log.error(`console: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      const r = raw as { id?: unknown } | null;
      reply = { kind: 'response', id: typeof r?.id === 'number' ? r.id : -1, ok: false, method: 'unknown', error: { code: 'INTERNAL', message: `the console host failed: ${(err as Error).message}` } };
    }
    if (!this.pages.has(page)) return; // closed while we worked
    const delivered = await Promise.resolve(page.webview.postMessage(reply)).catch(() => false);
    if (!delivered) return;
    this.count(page.layout, reply);
  }

  private helloFields(layout: ConsoleLayout): Omit<Extract<HostMessage, { kind: 'hello' }>, 'kind' | 'protocol'> {
    return { host: 'vscode', version: this.deps.version, vaultName: this.vaultName(), layout };
  }

  private hello(layout: ConsoleLayout): HostMessage {
    return { kind: 'hello', protocol: PROTOCOL_VERSION, ...this.helloFields(layout) };
  }

  private post(page: Page, message: HostMessage): Promise<boolean> {
    return Promise.resolve(page.webview.postMessage(message)).catch(() => false);
  }

  private count(layout: ConsoleLayout, reply: HostMessage): void {
    if (reply.kind === 'hello') {
      this.stats.hellos++;
      const info: ConsoleInfo = { layout, vaultName: reply.vaultName, version: reply.version, protocol: reply.protocol };
      this.lastHello.set(layout, info);
      this.stats.vaultNames[layout] = reply.vaultName;
      for (const w of this.helloWaiters.splice(0)) {
        if (!w.layout || w.layout === layout) w.resolve(info);
        else this.helloWaiters.push(w);
      }
    } else if (reply.kind === 'response') {
      if (reply.ok) this.stats.answered[reply.method] = (this.stats.answered[reply.method] ?? 0) + 1;
      else this.stats.failed++;
    }
  }

  /** Why the console cannot read a vault right now, or undefined when it can. */
  private unavailable(): string | undefined {
    if (!this.deps.session()) return 'This workspace has no K0maru vault: run "K0maru: Init Vault" first.';
    if (!vscode.workspace.isTrusted) return 'Restricted Mode: K0maru reads nothing from this workspace until you trust it.';
    return undefined;
  }

  private vaultName(): string {
    const s = this.deps.session();
    if (!s) return 'no vault';
    return vscode.workspace.isTrusted ? basename(s.projectRoot) : `${basename(s.projectRoot)} (restricted)`;
  }

  /** The core's console service on the current session, with openNote answered by the editor. */
  private service(core: ConsoleCore, layout: ConsoleLayout): ConsoleService {
    const why = this.unavailable();
    const session = this.deps.session();
    const ports: ConsolePorts = why || !session
      ? { project: () => Promise.reject(new core.K0Error('VAULT_NOT_FOUND', why ?? 'no vault')), vectors: () => Promise.reject(new core.K0Error('VAULT_NOT_FOUND', why ?? 'no vault')) }
      : this.sessionPorts(session);
    this.checkpoints ??= new core.LineCheckpoints();
    const service = core.createConsoleService(ports, this.checkpoints);
    return {
      handle: async (request) => {
        if (request.method !== 'openNote') return service.handle(request);
        return (await openNoteInEditor(core, await ports.project(), request.params as { path: string; line?: number }, layout)) as never;
      },
    };
  }

  private sessionPorts(session: VaultSession): ConsolePorts {
    if (this.embedding?.session !== session) {
      this.embedding?.sub.dispose();
      // The header's "embedding N / M" follows the same fill reports as the status bar item.
      this.embedding = { session, sub: session.controller.onDidChangeEmbedding(() => this.notify('embeddingChanged')) };
    }
    return {
      // Like the Memory view: the index as of the last scan that was running or queued when asked.
      project: () => session.controller.project(),
      vectors: (budgetMs) => session.vectors(budgetMs),
      embedding: () => session.controller.embedding,
    };
  }

  dispose(): void {
    this.embedding?.sub.dispose();
    this.embedding = undefined;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.pages.clear();
  }
}

