import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { FlushResult } from '../../../src/core/flush';
import { api, openSettled, saveInEditor, waitFor, workspaceRoot } from './helpers';

const ADR_REL = join('.k0maru', 'wiki', '02_Architecture', 'ADR-001-redis-lock.md');
const PAY_REL = join('src', 'pay.ts');
/** The two lines the first test adds to src/pay.ts and saves: one deny, one warn violation. */
const ADDED = '  await stripe.charges.create({ again: a });\n  setTimeout(() => pay(stripe, a), 100);\n';

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: workspaceRoot(), encoding: 'utf8' });
}

/** 0-based line of the first line of `file` containing `needle`. */
function lineOf(file: string, needle: string): number {
  const i = readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes(needle));
  assert.ok(i >= 0, `${needle} not in ${file}`);
  return i;
}

const guardDiagnostics = (uri: vscode.Uri) => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'K0maru');
const codeOf = (d: vscode.Diagnostic) => (typeof d.code === 'object' ? String(d.code.value) : String(d.code));

export function registerGuardTests(): void {
  describe('guard diagnostics', () => {
    const pay = () => vscode.Uri.file(join(workspaceRoot(), PAY_REL));
    const adr = () => join(workspaceRoot(), ADR_REL);

    before(async () => {
      const k0 = await api();
      await k0.whenIdle();
      // A repository whose HEAD already holds one violation: the editor, like the hook, must flag only new lines.
      // Created through the editor, so its model and the file on disk agree when the test edits and saves it.
      const create = new vscode.WorkspaceEdit();
      create.createFile(pay(), { contents: Buffer.from('export async function pay(stripe: any, a: unknown) {\n  await stripe.charges.create(a);\n}\n') });
      assert.ok(await vscode.workspace.applyEdit(create), 'could not create src/pay.ts');
      git('init', '-q');
      git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'add', '-A');
      git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'base');
    });

    it('flags only the lines a saved file adds against HEAD: deny = Error, warn = Warning, code targets the ADR', async () => {
      const k0 = await api();
      const doc = await openSettled(pay());
      const edit = new vscode.WorkspaceEdit();
      edit.insert(pay(), new vscode.Position(2, 0), ADDED);
      assert.ok(await vscode.workspace.applyEdit(edit));
      await saveInEditor(doc);
      const diags = await waitFor('two guard diagnostics on src/pay.ts', () => {
        const d = guardDiagnostics(pay());
        return d.length === 2 && d;
      });
      await k0.guard.whenIdle();
      const [deny, warn] = [...diags].sort((a, b) => a.range.start.line - b.range.start.line);
      assert.equal(deny.range.start.line, 2, 'the committed violation on line 2 must not be reported');
      assert.equal(deny.range.start.character, '  await '.length);
      assert.equal(deny.severity, vscode.DiagnosticSeverity.Error);
      assert.equal(codeOf(deny), 'k0maru.guard.CHARGE-LOCK');
      // #16 item 10: the match, the ADR's title and the remediation; the rule id is the code, not repeated here.
      assert.equal(deny.message, "'stripe.charges.create(' goes against \"Use a Redis lock around card charges\". Charge through `chargeWithLock()` so the Redis mutex is held.");
      const target = (deny.code as { target: vscode.Uri }).target;
      assert.equal(target.fsPath, adr());
      const ruleLine = lineOf(adr(), 'deny: `stripe.charges.create(`');
      assert.equal(target.fragment, `L${ruleLine + 1}`);
      assert.equal(deny.relatedInformation?.[0].location.uri.fsPath, adr());
      assert.equal(deny.relatedInformation?.[0].location.range.start.line, ruleLine);
      assert.equal(warn.range.start.line, 3);
      assert.equal(warn.severity, vscode.DiagnosticSeverity.Warning);
      assert.equal(codeOf(warn), 'k0maru.guard.NO-TIMER-RETRY');
    });

    it('k0maru.checkFile runs the same check on demand', async () => {
      // What it checks is the file the previous test saved: say so plainly if that save never reached the disk.
      assert.ok(readFileSync(pay().fsPath, 'utf8').includes(ADDED), 'src/pay.ts on disk lacks the lines the previous test saved');
      const diags = await vscode.commands.executeCommand<vscode.Diagnostic[]>('k0maru.checkFile', pay());
      assert.deepEqual(diags.map(codeOf).sort(), ['k0maru.guard.CHARGE-LOCK', 'k0maru.guard.NO-TIMER-RETRY']);
    });

    it('k0maru.strict shows warn rules as errors', async () => {
      const config = vscode.workspace.getConfiguration('k0maru');
      await config.update('strict', true, vscode.ConfigurationTarget.Workspace);
      try {
        await waitFor('the warning to become an error', () => {
          const d = guardDiagnostics(pay()).find((x) => codeOf(x) === 'k0maru.guard.NO-TIMER-RETRY');
          return d?.severity === vscode.DiagnosticSeverity.Error;
        });
      } finally {
        await config.update('strict', undefined, vscode.ConfigurationTarget.Workspace);
      }
      await waitFor('the warning to be a warning again', () => {
        const d = guardDiagnostics(pay()).find((x) => codeOf(x) === 'k0maru.guard.NO-TIMER-RETRY');
        return d?.severity === vscode.DiagnosticSeverity.Warning;
      });
    });

    it('checks a file when it is opened: an untracked file counts as wholly added', async () => {
      const refund = vscode.Uri.file(join(workspaceRoot(), 'src', 'refund.ts'));
      // Written by someone else (an agent, the terminal), then opened in the editor.
      writeFileSync(refund.fsPath, 'export const refund = (stripe: any) =>\n  stripe.charges.create({ amount: -1 });\n');
      await vscode.workspace.openTextDocument(refund);
      const d = await waitFor('a diagnostic on the opened file', () => guardDiagnostics(refund)[0]);
      assert.equal(d.range.start.line, 1);
      assert.equal(codeOf(d), 'k0maru.guard.CHARGE-LOCK');
      rmSync(refund.fsPath);
    });

    it('offers "Open ADR" and "Show remediation"; Open ADR lands on the rule', async () => {
      const range = new vscode.Range(2, 10, 2, 12);
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', pay(), range);
      const titles = actions.map((a) => a.title);
      assert.ok(titles.some((t) => t.startsWith('Open ADR ADR-001')), `code actions: ${titles.join(' | ')}`);
      assert.ok(titles.includes('Show remediation (CHARGE-LOCK)'), `code actions: ${titles.join(' | ')}`);
      const open = actions.find((a) => a.title.startsWith('Open ADR ADR-001'))!;
      await vscode.commands.executeCommand(open.command!.command, ...(open.command!.arguments ?? []));
      const editor = vscode.window.activeTextEditor;
      assert.equal(editor?.document.uri.fsPath, adr());
      assert.equal(editor?.selection.active.line, lineOf(adr(), 'deny: `stripe.charges.create(`'));
    });

    it('hot-swaps a rule added to the ADR in the editor: open files are re-checked', async () => {
      const doc = await openSettled(vscode.Uri.file(adr()));
      const at = lineOf(adr(), 'warn: `setTimeout(`') + 1;
      const edit = new vscode.WorkspaceEdit();
      edit.insert(doc.uri, new vscode.Position(at, 0), '- deny: `again:` | id: NO-AGAIN | because: Never charge again.\n');
      assert.ok(await vscode.workspace.applyEdit(edit));
      await saveInEditor(doc);
      await waitFor('the new rule to flag src/pay.ts', () => guardDiagnostics(pay()).some((d) => codeOf(d) === 'k0maru.guard.NO-AGAIN'));
    });

    it('shows malformed rules as diagnostics in the ADR itself', async () => {
      const bad = join(workspaceRoot(), '.k0maru', 'wiki', '02_Architecture', 'ADR-009-broken.md');
      writeFileSync(bad, '---\nstatus: accepted\n---\n# ADR-009: Broken\n\n## Rules\n\n- deny: /([a-z/ | because: unbalanced\n');
      const uri = vscode.Uri.file(bad);
      const d = await waitFor('a diagnostic in the malformed ADR', () => guardDiagnostics(uri)[0]);
      assert.equal(d.range.start.line, 7);
      assert.match(codeOf(d), /^k0maru\.rule\./);
      rmSync(bad);
      await waitFor('the ADR diagnostic to go with the file', () => guardDiagnostics(uri).length === 0);
    });

    it('skips files matched by k0maru.exclude and files inside the vault', async () => {
      const k0 = await api();
      mkdirSync(join(workspaceRoot(), 'generated'), { recursive: true });
      const gen = vscode.Uri.file(join(workspaceRoot(), 'generated', 'x.ts'));
      writeFileSync(gen.fsPath, 'stripe.charges.create(1);\n');
      // Untracked: the whole file counts as added.
      assert.equal((await k0.guard.check(gen)).length, 1);
      await vscode.workspace.getConfiguration('k0maru').update('exclude', ['generated/**'], vscode.ConfigurationTarget.Workspace);
      try {
        await waitFor('the setting to apply', () => (vscode.workspace.getConfiguration('k0maru').get<string[]>('exclude') ?? []).length === 1);
        assert.deepEqual(await k0.guard.check(gen), []);
      } finally {
        await vscode.workspace.getConfiguration('k0maru').update('exclude', undefined, vscode.ConfigurationTarget.Workspace);
      }
      // The ADR quotes the very code it forbids: the vault is never audited.
      assert.deepEqual(await k0.guard.check(vscode.Uri.file(adr())), []);
      rmSync(join(workspaceRoot(), 'generated'), { recursive: true });
    });

    it('clears the diagnostics when a flushed decision supersedes the ADR (k0maru.flushDecision writes the note)', async () => {
      const k0 = await api();
      const result = await vscode.commands.executeCommand<FlushResult>('k0maru.flushDecision', {
        title: 'Use a database advisory lock around card charges',
        summary: 'Postgres advisory locks replace the Redis mutex: one less service to run.',
        category: 'decision',
        tags: ['payments'],
        related_notes: ['2026-10-02-double-charge'],
        supersedes: ['ADR-001-redis-lock'],
      });
      assert.ok(result, 'the command returned nothing');
      assert.ok(existsSync(result.absPath), `${result.absPath} was not written`);
      assert.match(readFileSync(result.absPath, 'utf8'), /advisory lock/);
      assert.ok(result.superseded.some((p) => p.endsWith('ADR-001-redis-lock.md')), JSON.stringify(result.superseded));
      assert.match(readFileSync(adr(), 'utf8'), /status: superseded/);
      await waitFor('the diagnostics of the superseded ADR to clear', () => guardDiagnostics(pay()).length === 0);
      await k0.whenIdle();
    });

  });
}
