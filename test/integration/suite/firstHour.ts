import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { FlushResult } from '../../../src/core/flush';
import type { IntegrationReport } from '../../../src/core/install';
import type { Loadout } from '../../../src/core/loadout/loadout';
import type { OffloadResult } from '../../../src/core/offload';
import type { NodeSnapshot } from '../../../src/extension/views/listTree';
import { api, openSettled, saveInEditor, waitFor, workspaceRoot } from './helpers';

// Issue #16, editor items 8–14: what a person trips over in the first hour, each checked in the real host.

const ARCH = join('.k0maru', 'wiki', '02_Architecture');
const group = (nodes: NodeSnapshot[], label: string) => nodes.find((n) => n.label === label);
const guardDiagnostics = (uri: vscode.Uri) => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'K0maru');
const codeOf = (d: vscode.Diagnostic) => (typeof d.code === 'object' ? String(d.code.value) : String(d.code));
const dirtyDocs = () => vscode.workspace.textDocuments.filter((d) => d.isDirty).map((d) => d.uri.toString());

/** An ADR with two rules this suite owns (the fixture's ADR-001 is superseded by the guard suite). */
const LEGACY_ADR = `---
title: Charge only through the locked client
status: accepted
category: decision
date: 2026-11-01
---
# ADR-010: Charge only through the locked client

## Decision

The legacy charge helper bypasses the lock.

## Invariants

- deny: \`legacyCharge(\` | id: NO-LEGACY | because: Call chargeWithLock() so the mutex is held.
- warn: \`debugCharge(\` | id: NO-DEBUG-CHARGE | because: Remove debug charges before committing.
`;

export function registerFirstHourTests(): void {
  describe('first hour in the editor (issue #16 items 8–14)', () => {
    const legacyAdr = () => join(workspaceRoot(), ARCH, 'ADR-010-legacy-charge.md');

    before(async () => {
      const k0 = await api();
      await k0.whenIdle();
      writeFileSync(legacyAdr(), LEGACY_ADR);
      // Notes that live in the architecture folder but say by their category what they are.
      writeFileSync(join(workspaceRoot(), ARCH, 'meeting-2026-11-02.md'), '---\ntitle: Architecture sync meeting\ncategory: log\ndate: 2026-11-02\n---\n# Architecture sync meeting\n\nWe talked.\n');
      writeFileSync(join(workspaceRoot(), ARCH, 'glossary.md'), '---\ntitle: Payment glossary card\ncategory: concept\n---\n# Payment glossary card\n\nA charge is a charge.\n');
      await vscode.commands.executeCommand('k0maru.reindex');
      await k0.whenIdle();
    });

    it('#8 the Architecture view counts a note as an ADR by its category before its folder (same list as the loadout)', async () => {
      const k0 = await api();
      let snap: NodeSnapshot[] = [];
      await waitFor('the Architecture view to list ADR-010', () => {
        void k0.views.architecture().then((s) => (snap = s));
        return group(snap, 'Active')?.children?.some((n) => /locked client/.test(n.label)) && snap;
      });
      const all = [...(group(snap, 'Active')?.children ?? []), ...(group(snap, 'Superseded')?.children ?? [])].map((n) => n.label);
      assert.ok(!all.includes('Architecture sync meeting'), `a category: log note counted as an ADR: ${all.join(', ')}`);
      assert.ok(!all.includes('Payment glossary card'), `a category: concept note counted as an ADR: ${all.join(', ')}`);
      // The loadout lists decisions from the same core query: the log in the architecture folder is not one.
      const l = await vscode.commands.executeCommand<Loadout>('k0maru.showLoadout');
      assert.ok(l && !/meeting-2026-11-02\]\]:/.test(l.markdown), l?.markdown);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });

    it('#9 Show Loadout and Offload Selection show read-only documents, never a dirty Untitled one', async () => {
      const l = await vscode.commands.executeCommand<Loadout>('k0maru.showLoadout');
      assert.ok(l, 'no loadout');
      const doc = vscode.window.activeTextEditor?.document;
      assert.ok(doc, 'no document shown');
      assert.equal(doc.uri.scheme, 'k0maru', `shown as ${doc.uri.toString()}`);
      assert.equal(doc.isUntitled, false);
      assert.ok(doc.getText().includes(l.markdown.slice(0, 40)), doc.getText().slice(0, 200));
      assert.deepEqual(dirtyDocs(), []);
      // A content provider's document: its editor is read-only and it is never dirty, so closing never asks to save.
      assert.equal(doc.isDirty, false);

      const text = Array.from({ length: 300 }, (_, i) => `[build] compiling unit ${i}`).join('\n') + '\nerror TS2304: Cannot find name "chargeWithLock".\n';
      const untitled = await vscode.workspace.openTextDocument({ content: text, language: 'log' });
      const editor = await vscode.window.showTextDocument(untitled);
      editor.selection = new vscode.Selection(0, 0, untitled.lineCount, 0);
      const r = await vscode.commands.executeCommand<OffloadResult>('k0maru.offloadSelection');
      assert.ok(r && !r.passthrough && r.nodeId, 'nothing offloaded');
      const shown = vscode.window.activeTextEditor?.document;
      assert.equal(shown?.uri.scheme, 'k0maru', `offload shown as ${shown?.uri.toString()}`);
      assert.ok(shown.uri.path.includes(r.nodeId), shown.uri.path);
      assert.ok(!/```/.test(shown.uri.path), `titled ${shown.uri.path}`);
      assert.ok(shown.getText().includes(r.nodeId), 'the summary is not shown');
      // The only dirty document is the one this test typed the log into.
      assert.deepEqual(dirtyDocs().filter((u) => u !== untitled.uri.toString()), []);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      await vscode.window.showTextDocument(untitled);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });

    it('#10 a guard problem names the match, the ADR title and the remediation; the quick fix suppresses the line', async () => {
      const file = vscode.Uri.file(join(workspaceRoot(), 'src', 'legacy.ts'));
      mkdirSync(join(workspaceRoot(), 'src'), { recursive: true });
      writeFileSync(file.fsPath, 'export function pay(a: number) {\n  legacyCharge(a);\n  legacyCharge(a + 1);\n}\n');
      const doc = await openSettled(file);
      const diags = await waitFor('two NO-LEGACY problems', () => {
        const d = guardDiagnostics(file).filter((x) => codeOf(x) === 'k0maru.guard.NO-LEGACY');
        return d.length === 2 && d;
      });
      const d = diags.sort((a, b) => a.range.start.line - b.range.start.line)[0];
      assert.ok(d.message.includes('legacyCharge('), d.message);
      assert.ok(d.message.includes('Charge only through the locked client'), d.message);
      assert.ok(d.message.includes('Call chargeWithLock() so the mutex is held.'), d.message);
      assert.ok(!d.message.includes('NO-LEGACY'), `the code is repeated in the message: ${d.message}`);
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', file, d.range);
      const fix = actions.find((a) => /^Suppress NO-LEGACY on this line/.test(a.title));
      assert.ok(fix?.edit, `code actions: ${actions.map((a) => a.title).join(' | ')}`);
      assert.ok(await vscode.workspace.applyEdit(fix.edit));
      await saveInEditor(doc);
      const onDisk = readFileSync(file.fsPath, 'utf8').split('\n');
      assert.equal(onDisk[1], '  // k0maru-guard-ignore NO-LEGACY', onDisk.join('\n'));
      // One line suppressed: the other call is still a problem.
      await waitFor('one NO-LEGACY problem left, on the unsuppressed call', () => {
        const left = guardDiagnostics(file).filter((x) => codeOf(x) === 'k0maru.guard.NO-LEGACY');
        return left.length === 1 && left[0].range.start.line === 3;
      });
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });

    it('#11 superseding an ADR with a rule-less decision warns which rules stop applying; a new decision has an Invariants section', async () => {
      const r = await vscode.commands.executeCommand<FlushResult & { droppedRules?: string[] }>('k0maru.flushDecision', {
        title: 'Charge through the payment gateway client',
        summary: 'The gateway client replaces the legacy helper.',
        category: 'decision',
        supersedes: ['ADR-010-legacy-charge'],
      });
      assert.ok(r, 'the command returned nothing');
      assert.ok(r.superseded.some((p) => p.endsWith('ADR-010-legacy-charge.md')), JSON.stringify(r.superseded));
      assert.deepEqual([...(r.droppedRules ?? [])].sort(), ['NO-DEBUG-CHARGE', 'NO-LEGACY']);
      assert.ok(r.warnings.some((w) => /NO-LEGACY/.test(w) && /stop applying/.test(w)), r.warnings.join(' | '));
      const written = readFileSync(r.absPath, 'utf8');
      assert.match(written, /^## Invariants$/m, written);
    });

    it('#13 Install Agent Integrations writes .vscode/mcp.json only when the editor has no MCP provider; without one the user is told once', async () => {
      const k0 = await api();
      const mcp = k0.mcp() as ReturnType<typeof k0.mcp> & { notice?: string };
      const report = await vscode.commands.executeCommand<IntegrationReport>('k0maru.installIntegrations');
      assert.ok(report, 'install returned nothing');
      const vscodeMcp = join(workspaceRoot(), '.vscode', 'mcp.json');
      if (mcp.registration === 'vscode') {
        assert.ok(!existsSync(vscodeMcp) || !readFileSync(vscodeMcp, 'utf8').includes('k0maru'), 'the provider is registered and .vscode/mcp.json lists the server again');
        assert.equal(mcp.notice, undefined);
      } else {
        assert.ok(existsSync(vscodeMcp) && readFileSync(vscodeMcp, 'utf8').includes('k0maru'), '.vscode/mcp.json not written without a provider');
        assert.equal(mcp.notice, 'shown', 'no MCP provider and the user was not told how agents get the server');
      }
    });

    it('#14 log lines carry the time they were written; the rule/ADR counts match the Architecture view', async () => {
      const k0 = await api() as Awaited<ReturnType<typeof api>> & { logLines?: () => string[] };
      assert.equal(typeof k0.logLines, 'function', 'the API exposes no log lines');
      const before = Date.now();
      await vscode.commands.executeCommand('k0maru.reindex');
      const after = Date.now();
      const stamp = (l: string) => Date.parse(/^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)/.exec(l)?.[1] ?? '');
      const lines = k0.logLines!();
      const reindex = [...lines].reverse().find((l) => / reindex: /.test(l));
      assert.ok(reindex, lines.slice(-10).join('\n'));
      const t = stamp(reindex);
      assert.ok(t >= before - 5 && t <= after + 5, `"${reindex}" is stamped outside [${new Date(before).toISOString()}, ${new Date(after).toISOString()}]`);
      const activation = lines.find((l) => / activated in /.test(l));
      assert.ok(activation && stamp(activation) < t, `activation line ${activation}`);
      // The count line after the latest rule reload agrees with the Architecture view.
      await k0.whenIdle();
      const counts = [...k0.logLines!()].reverse().find((l) => /guard rules: /.test(l));
      const m = counts && /(\d+) active rule\(s\) in (\d+) ADR\(s\)/.exec(counts);
      assert.ok(m, counts);
      const snap = await k0.views.architecture();
      const active = group(snap, 'Active');
      const ruled = (active?.children ?? []).filter((n) => !/^0 rules/.test(n.description ?? ''));
      const rules = ruled.reduce((s, n) => s + Number(/^(\d+) rule/.exec(n.description ?? '')?.[1] ?? 0), 0);
      assert.equal(Number(m[1]), rules, `log: ${counts}; view: ${JSON.stringify(active)}`);
      assert.equal(Number(m[2]), ruled.length, `log: ${counts}; view: ${JSON.stringify(active)}`);
      assert.ok(active?.description?.includes(`${m[1]} rule`), `the Active group says ${active?.description}; the log ${counts}`);
    });
  });
}
