import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { api, waitFor, workspaceRoot } from './helpers';

/**
 * Issue 12 item 4 in the real VS Code host: a rule inferred from an ADR's prose decision shows in the ADR as an
 * Information diagnostic; its quick fix "Write as an explicit rule" inserts the explicit line into the ADR, and
 * once saved the inferred duplicate is gone while the explicit rule flags the code.
 */

const ADR_REL = join('.k0maru', 'wiki', '02_Architecture', 'ADR-002-no-lodash.md');
const ADR_TEXT = `---
title: Native array methods instead of lodash
status: accepted
---
# ADR-002: Native array methods instead of lodash

## Context

We considered \`lodash\` for collection helpers.

## Decision

Do not import \`lodash\` in \`src/\`; use the native array methods.
`;

const ours = (uri: vscode.Uri) => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'K0maru');
const codeOf = (d: vscode.Diagnostic) => (typeof d.code === 'object' ? String(d.code.value) : String(d.code));

export function registerInferredRuleTests(): void {
  describe('rules inferred from prose decisions', () => {
    const adr = () => vscode.Uri.file(join(workspaceRoot(), ADR_REL));
    const list = () => vscode.Uri.file(join(workspaceRoot(), 'src', 'list.ts'));

    after(async () => {
      // Leave the workspace as the other suites expect it.
      const edit = new vscode.WorkspaceEdit();
      edit.deleteFile(adr(), { ignoreIfNotExists: true });
      edit.deleteFile(list(), { ignoreIfNotExists: true });
      await vscode.workspace.applyEdit(edit);
      await (await api()).whenIdle();
    });

    it('shows the inferred rule on its sentence (Information) and "Write as an explicit rule" writes the explicit line', async () => {
      const k0 = await api();
      const create = new vscode.WorkspaceEdit();
      create.createFile(adr(), { contents: Buffer.from(ADR_TEXT), overwrite: true });
      assert.ok(await vscode.workspace.applyEdit(create), 'could not create the ADR');
      const sentenceLine = ADR_TEXT.split('\n').findIndex((l) => l.startsWith('Do not import'));
      const d = await waitFor('the inferred-rule diagnostic in the ADR', () => ours(adr()).find((x) => codeOf(x) === 'k0maru.guard.inferred'), 20_000);
      assert.equal(d.severity, vscode.DiagnosticSeverity.Information);
      assert.equal(d.range.start.line, sentenceLine);
      assert.match(d.message, /Inferred guard rule \(advisory\): deny import of lodash in src\/\*\*/);
      assert.equal(ours(adr()).filter((x) => x.range.start.line < sentenceLine - 2).length, 0, 'the Context sentence is not a rule');

      const doc = await vscode.workspace.openTextDocument(adr());
      await vscode.window.showTextDocument(doc);
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', adr(), new vscode.Range(sentenceLine, 3, sentenceLine, 3));
      const write = actions.find((a) => a.title === 'Write as an explicit rule');
      assert.ok(write?.edit, `code actions: ${actions.map((a) => a.title).join(' | ')}`);
      assert.ok(await vscode.workspace.applyEdit(write.edit));
      const text = doc.getText();
      assert.match(text, /\n## Invariants\n\n- deny: \/.*lodash.*\/ \| in: src\/\*\* \| no-strings \| because: Use the native array methods\n/);
      assert.ok(await doc.save());
      await waitFor('the inferred diagnostic to go once the rule is explicit', () => !ours(adr()).some((x) => codeOf(x) === 'k0maru.guard.inferred'), 20_000);
      await k0.guard.whenIdle();

      // The explicit rule now guards the code, blocking (Error), and the inferred duplicate does not fire beside it.
      const create2 = new vscode.WorkspaceEdit();
      create2.createFile(list(), { contents: Buffer.from("import _ from 'lodash';\nexport const xs = _.map([1], (x) => x);\n"), overwrite: true });
      assert.ok(await vscode.workspace.applyEdit(create2));
      await vscode.workspace.openTextDocument(list());
      const flagged = await waitFor('the explicit rule to flag src/list.ts', () => {
        const ds = ours(list());
        return ds.length > 0 && ds;
      }, 20_000);
      await k0.guard.whenIdle();
      const final = ours(list());
      assert.equal(final.length, 1, `one finding, not an explicit and an inferred one: ${final.map((x) => `${codeOf(x)} ${x.message}`).join(' | ')}`);
      assert.equal(flagged[0].severity, vscode.DiagnosticSeverity.Error);
      assert.equal(final[0].range.start.line, 0);
      assert.doesNotMatch(codeOf(final[0]), /inferred/);
    });
  });
}
