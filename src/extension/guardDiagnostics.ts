import * as vscode from 'vscode';
import { join, relative, sep } from 'node:path';
import type { AdrRules, GuardDiagnostic, GuardRule, Violation } from '../core/guard/types';
import { loadCore, loadGuard, toK0 } from './coreLoader';
import type { RuleModel } from './ruleModel';
import type { Settings } from './settings';
import { noteFilePath } from '../core/vault/notePath';
import { suppressionComment } from '../core/guard/suppress';

export const GUARD_SOURCE = 'K0maru';
export const DIAGNOSTIC_PREFIX = 'k0maru.guard.';
const CHECK_DEBOUNCE_MS = 100;
/** Files created or deleted in bursts (a checkout, a generator) cost one `git ls-files`, not one each. */
const SCOPE_DEBOUNCE_MS = 300;
export const SCOPE_NOTHING_CODE = 'rule.scope-matches-nothing';

/** What a code action needs about a diagnostic it did not create (the host hands back copies). */
export interface ViolationInfo {
  ruleId: string;
  adrId: string;
  adrUri: vscode.Uri;
  ruleLine: number;
  rule: string;
  remediation?: string;
  range: vscode.Range;
}

/**
 * The hook's audit, live in the editor: when a workspace file is opened or saved, the guard checks the lines it
 * adds relative to HEAD (whole file when untracked) against the active ADR rules and publishes the violations.
 * When the rules change, every open file is checked again, so adding a rule or superseding an ADR shows (or
 * clears) its diagnostics without a reload. Malformed rules are reported inside the ADR itself.
 */
export class GuardDiagnostics implements vscode.Disposable {
  private readonly files = vscode.languages.createDiagnosticCollection('k0maru.guard');
  private readonly adrFiles = vscode.languages.createDiagnosticCollection('k0maru.rules');
  private readonly infos = new Map<string, ViolationInfo[]>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly generation = new Map<string, number>();
  private readonly running = new Set<Promise<unknown>>();
  private readonly disposables: vscode.Disposable[] = [this.files, this.adrFiles];
  /**
   * `rule.scope-matches-nothing` as the newest guard run said it. Every run (a file's check or the scope refresh)
   * computes it over all active rules, so each answer replaces the last; `scopeSeq` keeps an answer from a run
   * that started before a newer one already answered from overwriting it.
   */
  private scopeFindings: GuardDiagnostic[] = [];
  private scopeSeq = 0;
  private scopeAnswered = 0;
  private scopeTimer: NodeJS.Timeout | undefined;
  private lastAdrs: AdrRules[] = [];
  private watching = false;

  constructor(
    private readonly projectRoot: string,
    private readonly notesRoot: () => string,
    private readonly rules: RuleModel,
    private readonly settings: () => Settings,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables.push(rules.onDidChange((adrs) => this.onRulesChanged(adrs)));
  }

  /** Is this a workspace file the guard audits (not the vault, not excluded)? */
  applies(uri: vscode.Uri): boolean {
    if (uri.scheme !== 'file') return false;
    const abs = uri.fsPath;
    if (!abs.startsWith(this.projectRoot + sep)) return false;
    const k0 = join(this.projectRoot, '.k0maru') + sep;
    if (abs.startsWith(k0) || abs.startsWith(this.notesRoot() + sep)) return false;
    const { exclude } = this.settings();
    if (exclude.length) {
      const rel = relative(this.projectRoot, abs).split(sep).join('/');
      if (loadCore().picomatch(exclude, { dot: true })(rel)) return false;
    }
    return true;
  }

  /** Debounced check of one file (open / save). */
  schedule(uri: vscode.Uri): void {
    if (!this.applies(uri)) return;
    const key = uri.toString();
    const t = this.timers.get(key);
    if (t) clearTimeout(t);
    this.timers.set(key, setTimeout(() => {
      this.timers.delete(key);
      void this.check(uri);
    }, CHECK_DEBOUNCE_MS));
  }

  /** Checks one file now and publishes its diagnostics; a newer check of the same file wins over a stale one. */
  check(uri: vscode.Uri): Promise<readonly vscode.Diagnostic[]> {
    // Restricted Mode: git's repository config can start programs, so the guard does not run at all.
    if (!vscode.workspace.isTrusted || !this.applies(uri)) {
      this.forget(uri);
      return Promise.resolve([]);
    }
    const p = this.run(uri);
    this.running.add(p);
    void p.finally(() => this.running.delete(p));
    return p;
  }

  async whenIdle(): Promise<void> {
    await this.rules.whenIdle();
    while (this.timers.size || this.running.size || this.scopeTimer) {
      if (this.running.size) await Promise.allSettled([...this.running]);
      else await new Promise((r) => setTimeout(r, CHECK_DEBOUNCE_MS));
    }
  }

  infoAt(uri: vscode.Uri, range: vscode.Range): ViolationInfo[] {
    return (this.infos.get(uri.toString()) ?? []).filter((i) => i.range.intersection(range));
  }

  forget(uri: vscode.Uri): void {
    this.generation.set(uri.toString(), (this.generation.get(uri.toString()) ?? 0) + 1);
    this.files.delete(uri);
    this.infos.delete(uri.toString());
  }

  clearAll(): void {
    this.files.clear();
    this.adrFiles.clear();
    this.infos.clear();
    this.scopeFindings = [];
  }

  /**
   * Asks again which rule scopes match no file (debounced): after the rules change and when files are created or
   * deleted in the workspace, so the warning appears when the code a rule targets goes and leaves once a file
   * matches again (restored, or the glob fixed). A guard run over an empty diff: only the scope check does work.
   */
  scheduleScopeCheck(): void {
    if (this.scopeTimer) clearTimeout(this.scopeTimer);
    const timer = setTimeout(() => {
      const p = this.checkScopes().finally(() => {
        if (this.scopeTimer === timer) this.scopeTimer = undefined;
      });
      this.running.add(p);
      void p.finally(() => this.running.delete(p));
    }, SCOPE_DEBOUNCE_MS);
    this.scopeTimer = timer;
  }

  private async checkScopes(): Promise<void> {
    if (!vscode.workspace.isTrusted || !this.settings().guardOnSave) return;
    const seq = ++this.scopeSeq;
    try {
      const adrs = await this.rules.adrs();
      if (!adrs.some((a) => a.active && a.rules.length)) return this.takeScopeFindings(seq, []);
      const result = await loadGuard().guardCheck({ cwd: this.projectRoot, env: {}, adrs, diff: '' });
      this.takeScopeFindings(seq, result.diagnostics);
    } catch (err) {
      const e = toK0(err);
      this.log.warn(`checking the rules' scopes failed: ${e.code}: ${e.message}`);
    }
  }

  private takeScopeFindings(seq: number, diagnostics: readonly GuardDiagnostic[]): void {
    if (seq < this.scopeAnswered) return;
    this.scopeAnswered = seq;
    const next = diagnostics.filter((d) => d.code === SCOPE_NOTHING_CODE);
    const key = (ds: GuardDiagnostic[]) => JSON.stringify(ds.map((d) => [d.adrPath, d.line, d.message]));
    if (key(next) === key(this.scopeFindings)) return;
    this.scopeFindings = next;
    this.publishRuleDiagnostics(this.lastAdrs);
  }

  /** Created and deleted workspace files can make a scope match again or match nothing (once). */
  private watchScopes(): void {
    if (this.watching) return;
    this.watching = true;
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(this.projectRoot), '**/*'), false, true, false);
    const k0 = join(this.projectRoot, '.k0maru') + sep;
    const git = join(this.projectRoot, '.git') + sep;
    const onFile = (uri: vscode.Uri) => {
      // The index, its locks and git's own files change all the time and never make a scope match.
      if (uri.scheme !== 'file' || uri.fsPath.startsWith(k0) || uri.fsPath.startsWith(git)) return;
      this.scheduleScopeCheck();
    };
    this.disposables.push(watcher, watcher.onDidCreate(onFile), watcher.onDidDelete(onFile));
  }

  private async run(uri: vscode.Uri): Promise<readonly vscode.Diagnostic[]> {
    const key = uri.toString();
    const gen = (this.generation.get(key) ?? 0) + 1;
    this.generation.set(key, gen);
    try {
      const core = loadGuard();
      const [adrs, source] = await Promise.all([this.rules.adrs(), core.guardSourceForFile(this.projectRoot, uri.fsPath)]);
      if (this.generation.get(key) !== gen) return this.files.get(uri) ?? [];
      if (source.kind === 'none' || !adrs.some((a) => a.active && a.rules.length)) {
        this.publish(uri, []);
        return [];
      }
      const seq = ++this.scopeSeq;
      const result = await core.guardCheck({
        cwd: source.root,
        env: {},
        adrs,
        ...(source.kind === 'diff' ? { diff: source.diff } : { files: source.files }),
      });
      // Only the workspace's own repository: a nested one lists other files.
      if (source.root === this.projectRoot) this.takeScopeFindings(seq, result.diagnostics);
      if (this.generation.get(key) !== gen) return this.files.get(uri) ?? [];
      const mine = result.violations.filter((v) => join(source.root, v.path) === uri.fsPath);
      return this.publish(uri, mine, adrs);
    } catch (err) {
      const e = toK0(err);
      this.log.warn(`guard check of ${uri.fsPath} failed: ${e.code}: ${e.message}`);
      return this.files.get(uri) ?? [];
    }
  }

  private publish(uri: vscode.Uri, violations: Violation[], adrs: AdrRules[] = []): vscode.Diagnostic[] {
    const strict = this.settings().strict;
    const ruleLines = new Map<string, GuardRule>();
    const titles = new Map<string, string>();
    for (const a of adrs) {
      titles.set(a.adrPath, a.title);
      for (const r of a.rules) ruleLines.set(`${a.adrPath}\0${r.id}`, r);
    }
    const infos: ViolationInfo[] = [];
    const diagnostics = violations.map((v) => {
      const adrUri = vscode.Uri.file(noteFilePath({ projectRoot: this.projectRoot, notesRoot: this.notesRoot() }, v.adrPath));
      const ruleLine = ruleLines.get(`${v.adrPath}\0${v.ruleId}`)?.line ?? 1;
      const start = new vscode.Position(v.line - 1, Math.max(0, v.column - 1));
      const range = new vscode.Range(start, start.translate(0, Math.max(1, v.match.length)));
      const severity = v.severity === 'error' || strict ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning;
      const d = new vscode.Diagnostic(range, problemMessage(v, titles.get(v.adrPath)), severity);
      d.source = GUARD_SOURCE;
      d.code = { value: `${DIAGNOSTIC_PREFIX}${v.ruleId}`, target: adrUri.with({ fragment: `L${ruleLine}` }) };
      d.relatedInformation = [
        new vscode.DiagnosticRelatedInformation(new vscode.Location(adrUri, new vscode.Position(ruleLine - 1, 0)), `rule ${v.ruleId} in ${v.adrId}`),
      ];
      infos.push({ ruleId: v.ruleId, adrId: v.adrId, adrUri, ruleLine, rule: v.rule, remediation: v.remediation, range });
      return d;
    });
    this.files.set(uri, diagnostics);
    this.infos.set(uri.toString(), infos);
    return diagnostics;
  }

  private onRulesChanged(adrs: AdrRules[]): void {
    this.publishRuleDiagnostics(adrs);
    if (!this.settings().guardOnSave) return;
    this.scheduleScopeCheck();
    for (const doc of vscode.workspace.textDocuments) if (this.applies(doc.uri)) void this.check(doc.uri);
  }

  /**
   * Malformed rules of active ADRs, shown in the ADR file at the rule's line; beside them, as Warnings, the scopes
   * that match no file of the repository (the rule never fires).
   */
  publishRuleDiagnostics(adrs: AdrRules[]): void {
    this.lastAdrs = adrs;
    this.adrFiles.clear();
    for (const a of adrs) {
      const scopes = this.scopeFindings.filter((d) => d.adrPath === a.adrPath);
      if (!a.active || (!a.diagnostics.length && !scopes.length)) continue;
      const uri = vscode.Uri.file(noteFilePath({ projectRoot: this.projectRoot, notesRoot: this.notesRoot() }, a.adrPath));
      this.adrFiles.set(uri, [...a.diagnostics.map((g) => {
        const line = Math.max(0, g.line - 1);
        // Advice from prose inference (a sentence the guard could not turn into a rule) is not a broken rule.
        const severity = g.inferred ? vscode.DiagnosticSeverity.Information : vscode.DiagnosticSeverity.Error;
        const d = new vscode.Diagnostic(new vscode.Range(line, 0, line, 1000), g.message, severity);
        d.source = GUARD_SOURCE;
        d.code = `k0maru.${g.code}`;
        return d;
      }), ...scopes.map((g) => scopeDiagnostic(uri, g))]);
    }
  }

  /** Loads the rules once (publishing malformed-rule diagnostics) and checks the files already open. */
  async start(): Promise<void> {
    try {
      this.publishRuleDiagnostics(await this.rules.adrs());
    } catch {
      return; // logged by the model
    }
    this.watchScopes();
    this.scheduleScopeCheck();
    for (const doc of vscode.workspace.textDocuments) if (this.applies(doc.uri)) void this.check(doc.uri);
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    if (this.scopeTimer) clearTimeout(this.scopeTimer);
    this.scopeTimer = undefined;
    for (const d of this.disposables) d.dispose();
  }
}

/**
 * A scope that matches no file, in its ADR at the line that declares it. The core's message names the rule, the
 * ADR and the remediation; the code links to that line and the related information points at it, so the Problems
 * panel (where the ADR may not be open) leads there in one click.
 */
function scopeDiagnostic(adrUri: vscode.Uri, g: GuardDiagnostic): vscode.Diagnostic {
  const line = Math.max(0, g.line - 1);
  const d = new vscode.Diagnostic(new vscode.Range(line, 0, line, 1000), g.message, vscode.DiagnosticSeverity.Warning);
  d.source = GUARD_SOURCE;
  d.code = { value: `k0maru.${g.code}`, target: adrUri.with({ fragment: `L${g.line}` }) };
  d.relatedInformation = [
    new vscode.DiagnosticRelatedInformation(new vscode.Location(adrUri, new vscode.Position(line, 0)), 'the scope is declared here; point it at where the code lives now, or supersede the ADR'),
  ];
  return d;
}

/** "Open ADR" and "Show remediation" for the guard's diagnostics. */
export class GuardCodeActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];
  constructor(private readonly diagnostics: GuardDiagnostics) {}

  provideCodeActions(doc: vscode.TextDocument, range: vscode.Range, ctx: vscode.CodeActionContext): vscode.CodeAction[] {
    const ours = ctx.diagnostics.filter((d) => d.source === GUARD_SOURCE);
    if (!ours.length) return [];
    const actions: vscode.CodeAction[] = [];
    const seen = new Set<string>();
    for (const info of this.diagnostics.infoAt(doc.uri, range)) {
      if (seen.has(info.ruleId)) continue;
      seen.add(info.ruleId);
      const diag = ours.filter((d) => codeValue(d) === `${DIAGNOSTIC_PREFIX}${info.ruleId}`);
      const open = new vscode.CodeAction(`Open ADR ${info.adrId}`, vscode.CodeActionKind.QuickFix);
      open.command = { command: 'k0maru.openAdr', title: open.title, arguments: [info.adrUri, info.ruleLine] };
      open.diagnostics = diag;
      actions.push(open);
      const show = new vscode.CodeAction(`Show remediation (${info.ruleId})`, vscode.CodeActionKind.QuickFix);
      show.command = { command: 'k0maru.showRemediation', title: show.title, arguments: [info] };
      show.diagnostics = diag;
      actions.push(show);
      const suppress = new vscode.CodeAction(`Suppress ${info.ruleId} on this line`, vscode.CodeActionKind.QuickFix);
      suppress.edit = suppressEdit(doc, info.range.start.line, info.ruleId);
      suppress.diagnostics = diag.filter((d) => d.range.start.line === info.range.start.line);
      actions.push(suppress);
    }
    return actions;
  }
}

/**
 * What a person reads in Problems: the text that matched, the decision it breaks (the ADR's title) and what to do
 * instead. The rule id is the diagnostic's code and the ADR is one click away (related information), so neither is
 * repeated here.
 */
export function problemMessage(v: Violation, adrTitle: string | undefined): string {
  const decision = adrTitle ? `"${adrTitle}"` : v.adrId;
  return `'${v.match}' goes against ${decision}. ${v.remediation ? v.remediation : `Rule: ${v.rule}`}`;
}

/** Inserts `<comment> k0maru-guard-ignore <rule>` above the flagged line, indented like it (docs/guard.md). */
function suppressEdit(doc: vscode.TextDocument, line: number, ruleId: string): vscode.WorkspaceEdit {
  const text = doc.lineAt(line).text;
  const indent = text.slice(0, text.length - text.trimStart().length);
  const edit = new vscode.WorkspaceEdit();
  edit.insert(doc.uri, new vscode.Position(line, 0), `${indent}${suppressionComment(doc.languageId, ruleId)}\n`);
  return edit;
}

function codeValue(d: vscode.Diagnostic): string | undefined {
  const c = d.code;
  if (c === undefined) return undefined;
  return typeof c === 'object' ? String(c.value) : String(c);
}
