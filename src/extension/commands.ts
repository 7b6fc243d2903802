import * as vscode from 'vscode';
import { basename, join } from 'node:path';
import type { RecallResult } from '../core/search/types';
import type { Loadout } from '../core/loadout/loadout';
import type { OffloadResult } from '../core/offload';
import type { DistillResult } from '../core/distill';
import type { IntegrationReport } from '../core/install';
import type { InitReport } from '../core/vault/init';
import { loadCore, loadDistill, loadTools, toK0 } from './coreLoader';
import { openAt, reportErrors, requireProject, requireTrust, selectedText, type CommandHost } from './commandHost';
import { flushDecision } from './flushCommand';
import type { ViolationInfo } from './guardDiagnostics';
import { noteFilePath } from '../core/vault/notePath';
import { formatTokenChange } from '../shared/format';

/**
 * Palette commands. Each calls the same core use case as the CLI and the MCP tool. Every command also takes an
 * optional argument object that replaces its prompts (keybindings, other extensions, the integration tests).
 */
export function registerCommands(host: CommandHost): vscode.Disposable[] {
  const reg = vscode.commands.registerCommand;
  return [
    reg('k0maru.initVault', (args?: { vault?: string }) => initVaultCommand(host, args)),
    reg('k0maru.installIntegrations', () => installCommand(host)),
    reg('k0maru.flushDecision', (args?) => flushDecision(host, args)),
    reg('k0maru.recall', (args?: { query?: string; open?: boolean }) => recallCommand(host, args)),
    reg('k0maru.showLoadout', () => loadoutCommand(host)),
    reg('k0maru.offloadSelection', (args?: { text?: string; taskName?: string }) => offloadCommand(host, args)),
    reg('k0maru.distillSkill', (args?: { text?: string; title?: string; confirm?: boolean }) => distillCommand(host, args)),
    reg('k0maru.openAdr', (uri: vscode.Uri, line?: number) => openAt(uri, line)),
    reg('k0maru.showRemediation', (info: ViolationInfo) => showRemediation(info)),
  ];
}

async function initVaultCommand(host: CommandHost, args?: { vault?: string }): Promise<InitReport | undefined> {
  if (!requireTrust('Init Vault')) return undefined;
  const root = host.workspaceRoot();
  if (!root) {
    void vscode.window.showErrorMessage('K0maru: open a folder first; the vault lives in the project folder.');
    return undefined;
  }
  return reportErrors(host, 'Init Vault', async () => {
    const report = loadTools().initVault({ projectRoot: root, vault: args?.vault });
    host.log.info(`init: created ${report.created.join(', ') || 'nothing'}; found ${report.found.join(', ') || 'nothing'}`);
    host.vaultCreated(root);
    const pick = await Promise.race([
      vscode.window.showInformationMessage(`K0maru: vault ready in ${report.notesRoot}.`, 'Install Agent Integrations'),
      // Do not hold the command's promise on a notification nobody answers (tests, automation).
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 50)),
    ]);
    if (pick) void vscode.commands.executeCommand('k0maru.installIntegrations');
    return report;
  });
}

async function installCommand(host: CommandHost): Promise<IntegrationReport | undefined> {
  // Hooks and MCP configs run code on the next commit / agent start: never from an untrusted folder.
  if (!requireTrust('Install Agent Integrations')) return undefined;
  const root = host.controller()?.projectRoot ?? host.workspaceRoot();
  if (!root) return undefined;
  return reportErrors(host, 'Install Agent Integrations', async () => {
    // The launcher's recorded fallback: the CLI bundled in this extension, run by `node` from PATH (the extension
    // host's own executable is Electron or code-server's node, neither a stable path for a git hook).
    const command = `node "${join(host.extensionPath, 'dist', 'cli.mjs')}"`;
    // With the MCP provider registered, this editor already lists the server: its project config file would list it
    // twice (VS Code: .vscode/mcp.json; Cursor: .cursor/mcp.json). Other agents' files are written as usual.
    const registration = host.mcpRegistration();
    const self = registration === 'vscode' ? { client: 'VS Code', file: '.vscode/mcp.json' } : registration === 'cursor' ? { client: 'Cursor', file: '.cursor/mcp.json' } : undefined;
    const r = loadTools().installIntegrations(root, { command, ...(self ? { skipClients: [self.client] } : {}) });
    if (self) r.notes.push(`${self.client} lists the server through the extension itself, so ${self.file} was left alone.`);
    const changed = [...r.agents.changed, ...(r.hooks ? [`hooks`] : [])];
    host.log.info(`install: changed ${r.agents.changed.join(', ') || 'nothing'}; kept ${r.agents.kept.join(', ') || 'none'}; ${r.notes.join('; ')}`);
    void vscode.window.showInformationMessage(`K0maru: agent integrations installed (${changed.join(', ') || 'already up to date'}).${r.notes.length ? ' ' + r.notes.join(' ') : ''}`);
    return r;
  });
}

/** What the Recall command returns: the core's answer plus how long the person waited for it. */
export type EditorRecallResult = RecallResult & {
  /**
   * Milliseconds from the query being asked (typed and entered, or passed in) to the hits being ready to show:
   * the scan before the answer, the model load and the embedding budget included. `tookMs` is only the search.
   */
  waitedMs: number;
};

async function recallCommand(host: CommandHost, args?: { query?: string; open?: boolean }): Promise<EditorRecallResult | undefined> {
  const project = await requireProject(host, 'Recall');
  if (!project) return undefined;
  const query = args?.query ?? (await vscode.window.showInputBox({ title: 'K0maru: Recall', prompt: 'Search the project memory', placeHolder: 'e.g. how do we lock a payment?' }));
  if (!query?.trim()) return undefined;
  // The clock starts when the question is asked: what the person waits through is the scan, the model and the search.
  const asked = performance.now();
  return reportErrors(host, 'Recall', async () => {
    const answered = await recallWithProgress(host, query);
    if (!answered) return undefined; // cancelled in the notification
    const result: EditorRecallResult = { ...answered, waitedMs: performance.now() - asked };
    for (const w of result.warnings) host.log.info(`recall: ${w}`);
    host.log.info(`recall: ${result.hits.length} hit(s) for "${query}" after ${formatWait(result.waitedMs)} (search ${result.tookMs.toFixed(0)} ms)`);
    if (args?.query !== undefined && !args.open) return result;
    if (!result.hits.length) {
      void vscode.window.showInformationMessage(`K0maru: nothing in memory matches "${query}" (${formatWait(result.waitedMs)}).`);
      return result;
    }
    const pick = await vscode.window.showQuickPick(recallPickItems(result), { title: recallTitle(result, query), matchOnDescription: true, matchOnDetail: true },
    );
    if (pick) await openAt(vscode.Uri.file(noteFilePath(project.paths, pick.hit.path)), pick.hit.line);
    return result;
  });
}

/** The picker's rows: superseded and stale notes marked, a stale one's reason before its text (issue #18). */
export function recallPickItems(r: RecallResult): (vscode.QuickPickItem & { hit: RecallResult['hits'][number] })[] {
  return r.hits.map((h) => ({
    label: `${h.superseded ? '$(circle-slash) ' : h.stale ? '$(warning) ' : ''}${h.title}`,
    description: `${h.path}:${h.line} · ${h.tier}${h.stale ? ' · stale' : ''}`,
    detail: `${h.stale ? `⚠ ${h.stale.reason} — ` : ''}${h.snippet.replace(/\s+/g, ' ')}`.slice(0, 200),
    hit: h,
  }));
}

/** The picker's title: hits, the mode as a person should read it, and the time they waited. */
export function recallTitle(r: EditorRecallResult, query: string): string {
  return `K0maru: ${r.hits.length} hit(s) for "${query}" (${r.effectiveModeLabel}, ${formatWait(r.waitedMs)})`;
}

/** 351 → "351 ms", 19_512 → "19.5 s". */
export function formatWait(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * Hybrid recall like the MCP tool (BM25 with the reason until the embedding model loads: the host's policy), with
 * a notification while the person waits: the first one on a big vault scans and loads the model first. Cancel
 * stops the wait (undefined); the shared scan and the model load go on for the next call.
 */
async function recallWithProgress(host: CommandHost, query: string): Promise<RecallResult | undefined> {
  const abort = new AbortController();
  try {
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `K0maru: recalling "${query.length > 60 ? `${query.slice(0, 57)}…` : query}"`, cancellable: true },
      (progress, token) => {
        token.onCancellationRequested(() => abort.abort());
        progress.report({ message: 'indexing changes, then searching…' });
        return host.recall(query, { mode: 'hybrid', limit: 20, signal: abort.signal });
      },
    );
  } catch (err) {
    if ((err as { code?: string }).code === 'CANCELLED' || toK0(err).code === 'CANCELLED') return undefined;
    throw err;
  }
}

async function loadoutCommand(host: CommandHost): Promise<Loadout | undefined> {
  const project = await requireProject(host, 'Show Loadout');
  if (!project) return undefined;
  return reportErrors(host, 'Show Loadout', async () => {
    const core = loadCore();
    const budget = host.settings().loadoutBudget;
    // With the working-tree changes when there is a repository (relevant ADRs first); without, the plain loadout.
    const loadout = await core.getProjectLoadout(project, { budget, diff: true }).catch(() => core.getProjectLoadout(project, { budget }));
    await host.showDocument('Loadout', `${loadout.markdown}\n\n<!-- K0maru loadout: ${loadout.tokens}/${loadout.budget} tokens, ${loadout.dropped} line(s) dropped -->\n`);
    return loadout;
  });
}

async function offloadCommand(host: CommandHost, args?: { text?: string; taskName?: string }): Promise<OffloadResult | undefined> {
  const project = await requireProject(host, 'Offload Selection');
  if (!project) return undefined;
  const text = args?.text ?? selectedText();
  if (!text) {
    void vscode.window.showWarningMessage('K0maru: select the log text to offload first.');
    return undefined;
  }
  const doc = vscode.window.activeTextEditor?.document;
  const taskName = args?.taskName ?? (doc && !doc.isUntitled ? basename(doc.fileName) : 'editor selection');
  return reportErrors(host, 'Offload Selection', async () => {
    // A person reads the summary here: it names the CLI command, not the MCP tool (issue 16 item 7).
    const r = await loadTools().offloadLog(project.paths, { text, taskName, source: 'api', inspectHint: 'command' });
    if (r.passthrough) {
      void vscode.window.showInformationMessage(`K0maru: the selection has ${r.lines} lines, too short to offload.`);
      return r;
    }
    host.refreshViews();
    host.log.info(`offload: ${r.nodeId} ${r.lines} lines, ${formatTokenChange(r.tokensBefore, r.tokensAfter, r.reduction)}`);
    if (args?.text === undefined) await host.showDocument(`Offload ${r.nodeId}`, r.text);
    return r;
  });
}

async function distillCommand(host: CommandHost, args?: { text?: string; title?: string; confirm?: boolean }): Promise<DistillResult | undefined> {
  const project = await requireProject(host, 'Distill Skill');
  if (!project) return undefined;
  const text = args?.text ?? selectedText() ?? (await vscode.env.clipboard.readText());
  if (!text?.trim()) {
    void vscode.window.showWarningMessage('K0maru: select an error trace (or copy one to the clipboard) to distill.');
    return undefined;
  }
  return reportErrors(host, 'Distill Skill', async () => {
    const core = loadDistill();
    const input = { raw_trace: text, ...(args?.title ? { title: args.title } : {}) };
    const preview = await core.distillSkill(project.paths, { ...input, dry_run: true });
    let write = args?.confirm;
    if (write === undefined) {
      await host.showDocument(`Skill preview ${preview.title}`, `<!-- Preview: "${preview.title}" (${preview.family}); nothing is written until you choose Write Skill -->\n\n${preview.content}`);
      write = (await vscode.window.showInformationMessage(`K0maru: write the skill "${preview.title}" to the vault?`, { modal: true }, 'Write Skill')) === 'Write Skill';
    }
    if (!write) return preview;
    const written = await core.distillSkill(project.paths, input);
    host.refreshViews();
    // The skill note is in the vault now: index it so Memory and Recall see it without waiting for the watcher.
    void host.controller()?.scan('command').catch(() => undefined);
    if (written.note && args?.confirm === undefined) await openAt(vscode.Uri.file(join(project.paths.notesRoot, written.note.path)));
    return written;
  });
}

async function showRemediation(info: ViolationInfo): Promise<void> {
  const text = info.remediation ?? `No remediation written for this rule: ${info.rule}`;
  const pick = await vscode.window.showInformationMessage(`${info.adrId} (${info.ruleId}): ${text}`, 'Open ADR');
  if (pick) await openAt(info.adrUri, info.ruleLine);
}

