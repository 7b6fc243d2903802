import * as vscode from 'vscode';
import type { AdrRules, GuardRule, InferredSetting } from '../core/guard/types';
import type { VaultPaths } from '../core/vault/paths';
import { loadGuard } from './coreLoader';
import type { RuleModel } from './ruleModel';
import { noteFilePath } from '../core/vault/notePath';

export const INFERRED_CODE = 'k0maru.guard.inferred';
const SOURCE = 'K0maru';

/**
 * Rules inferred from prose decisions, shown in the ADR itself: an Information diagnostic on the sentence a rule
 * was read from, with the quick fix "Write as an explicit rule" that inserts the equivalent line of the rule
 * language into the ADR's guard section. A diagnostic rather than a CodeLens: it sits on the sentence (not on a
 * line of its own above every inferred sentence), is listed in the Problems view next to the ADR's other rule
 * diagnostics, and carries the quick fix in the lightbulb where people look for fixes. Information, not
 * Warning: the ADR is not wrong — the note says what the guard will check.
 */
export class InferredRuleView implements vscode.Disposable, vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];
  private readonly collection = vscode.languages.createDiagnosticCollection('k0maru.inferred');
  private readonly byUri = new Map<string, { rule: GuardRule; range: vscode.Range }[]>();
  private readonly disposables: vscode.Disposable[] = [this.collection];

  constructor(
    private readonly paths: () => VaultPaths,
    private readonly rules: RuleModel,
  ) {
    this.disposables.push(rules.onDidChange((adrs) => this.publish(adrs)));
  }

  async start(): Promise<void> {
    try {
      this.publish(await this.rules.adrs());
    } catch {
      // logged by the model
    }
  }

  /** The vault's `guard.inferred`; an invalid value is reported by the guard itself, here it reads as the default. */
  private vaultSetting(): InferredSetting {
    try {
      return loadGuard().vaultInferredSetting(this.paths());
    } catch {
      return 'warn';
    }
  }

  publish(adrs: AdrRules[]): void {
    this.collection.clear();
    this.byUri.clear();
    const vault = this.vaultSetting();
    for (const a of adrs) {
      if (!a.active) continue;
      const inferred = a.rules.filter((r) => r.origin === 'inferred');
      if (!inferred.length) continue;
      const uri = vscode.Uri.file(noteFilePath(this.paths(), a.adrPath));
      const entries = inferred.map((rule) => ({ rule, range: new vscode.Range(rule.line - 1, 0, rule.line - 1, 1000) }));
      this.byUri.set(uri.toString(), entries);
      this.collection.set(uri, entries.map(({ rule, range }) => {
        const setting = rule.adrSetting ?? vault;
        const how = setting === 'off' ? 'turned off' : setting === 'block' ? 'blocking' : 'advisory';
        const scope = [rule.include.length ? `in ${rule.include.join(', ')}` : '', rule.exclude.length ? `except ${rule.exclude.join(', ')}` : ''].filter(Boolean).join(' ');
        const d = new vscode.Diagnostic(range, `Inferred guard rule (${how}): ${rule.text.replace(/ \(inferred\)$/, '')}${scope ? ` ${scope}` : ''}`, vscode.DiagnosticSeverity.Information);
        d.source = SOURCE;
        d.code = INFERRED_CODE;
        return d;
      }));
    }
  }

  provideCodeActions(doc: vscode.TextDocument, range: vscode.Range, ctx: vscode.CodeActionContext): vscode.CodeAction[] {
    const ours = ctx.diagnostics.filter((d) => d.source === SOURCE && d.code === INFERRED_CODE);
    if (!ours.length) return [];
    const entries = (this.byUri.get(doc.uri.toString()) ?? []).filter((e) => e.range.intersection(range));
    const actions: vscode.CodeAction[] = [];
    for (const { rule, range: r } of entries) {
      const ins = loadGuard().explicitRuleInsertion(doc.getText(), rule);
      const action = new vscode.CodeAction(entries.length > 1 ? `Write as an explicit rule (${rule.text.replace(/ \(inferred\)$/, '')})` : 'Write as an explicit rule', vscode.CodeActionKind.QuickFix);
      action.edit = new vscode.WorkspaceEdit();
      action.edit.insert(doc.uri, new vscode.Position(Math.min(ins.line, doc.lineCount), 0), ins.text);
      action.diagnostics = ours.filter((d) => d.range.intersection(r));
      action.isPreferred = entries.length === 1;
      actions.push(action);
    }
    return actions;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
