import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { SCOPE_NOTE, SCOPE_RULE } from '../harness/staleWorkspace';
import { waitFor, workspaceRoot } from './helpers';

const CODE = 'k0maru.rule.scope-matches-nothing';
const codeOf = (d: vscode.Diagnostic) => (typeof d.code === 'object' ? String(d.code.value) : String(d.code));
const scopeWarnings = (uri: vscode.Uri) => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'K0maru' && codeOf(d) === CODE);

/** 0-based line of the first line of `file` containing `needle`. */
function lineOf(file: string, needle: string): number {
  const i = readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes(needle));
  assert.ok(i >= 0, `${needle} not in ${file}`);
  return i;
}

/**
 * Issue #18, guard side, in the real host: ADR-014's rule is scoped to `src/legacy/**`, which the workspace's
 * second commit emptied (harness/staleWorkspace.ts), so the rule can never fire. The ADR carries a Warning at the
 * rule's line saying so, with the remediation and a link to that line; it leaves when a file matches the scope
 * again (created, untracked and not ignored) or when the rule's glob is pointed at code that exists.
 */
export function registerScopeMatchesNothingTests(): void {
  describe('rule scope matches no files (issue #18)', () => {
    const file = () => join(workspaceRoot(), '.k0maru', 'wiki', SCOPE_NOTE);
    const adr = () => vscode.Uri.file(file());
    const legacy = () => join(workspaceRoot(), 'src', 'legacy');
    let original = '';

    before(() => {
      original = readFileSync(file(), 'utf8');
    });

    after(() => {
      rmSync(legacy(), { recursive: true, force: true });
      writeFileSync(file(), original);
    });

    it('an ADR whose rule targets code that no longer exists gets a Warning at the rule, with the remediation', async () => {
      const d = await waitFor('the scope warning in ADR-014', () => scopeWarnings(adr())[0]);
      const ruleLine = lineOf(file(), 'in: src/legacy/**');
      assert.equal(d.severity, vscode.DiagnosticSeverity.Warning);
      assert.equal(d.range.start.line, ruleLine);
      assert.match(d.message, /^rule scope matches no files: 'src\/legacy\/\*\*'/);
      assert.match(d.message, /\[\[ADR-014-legacy-jobs\]\]/);
      assert.match(d.message, /Remediation: point the scope at where that code lives now/);
      const target = (d.code as { target: vscode.Uri }).target;
      assert.equal(target.fsPath, file());
      assert.equal(target.fragment, `L${ruleLine + 1}`);
      assert.equal(d.relatedInformation?.[0].location.uri.fsPath, file());
      assert.equal(d.relatedInformation?.[0].location.range.start.line, ruleLine);
      // The other ADRs have no scoped rules, and the folder that still has files draws nothing.
      const elsewhere = ['ADR-010-connection-pool.md', 'ADR-012-retry-policy.md']
        .flatMap((n) => scopeWarnings(vscode.Uri.file(join(workspaceRoot(), '.k0maru', 'wiki', '02_Architecture', n))));
      assert.deepEqual(elsewhere, []);
    });

    it('a file created under src/legacy/ (untracked, not ignored) makes the scope match: the warning goes', async () => {
      mkdirSync(legacy(), { recursive: true });
      writeFileSync(join(legacy(), 'jobs.ts'), 'export const JOBS = "jobs-service";\n');
      await waitFor('the scope warning to leave ADR-014', () => scopeWarnings(adr()).length === 0);
    });

    it('a glob pointed at a folder with no files warns again, and pointing it at existing code clears it', async () => {
      writeFileSync(file(), original.replace(SCOPE_RULE, SCOPE_RULE.replace('src/legacy/**', 'src/queue/**')));
      const d = await waitFor('the warning for src/queue/**', () => scopeWarnings(adr())[0]);
      assert.match(d.message, /'src\/queue\/\*\*'/);
      assert.equal(d.range.start.line, lineOf(file(), 'in: src/queue/**'));
      writeFileSync(file(), original.replace(SCOPE_RULE, SCOPE_RULE.replace('src/legacy/**', 'src/util/**')));
      await waitFor('the warning to go once the glob names src/util/**', () => scopeWarnings(adr()).length === 0);
    });
  });
}
