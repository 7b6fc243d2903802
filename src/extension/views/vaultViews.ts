import * as vscode from 'vscode';
import type { AdrRules } from '../../core/guard/types';
import type { Project } from '../../core/project';
import { loadCore } from '../coreLoader';
import type { ListNode } from './listTree';
import { noteFilePath } from '../../core/vault/notePath';

/** Builders for the sidebar's trees: each reads the index (or the ledger) and returns plain nodes. */

interface DocRow {
  path: string;
  title: string;
  category: string | null;
  status: string | null;
  date: string | null;
  tier: string;
  superseded: number;
}

const ADR_FOLDER = /(^|\/)(\d+[_ -]?)?(architecture|adrs?|decisions?)\//i;
const open = (uri: vscode.Uri, line = 1): vscode.Command => ({ command: 'k0maru.openAdr', title: 'Open', arguments: [uri, line] });
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** ADRs grouped active / superseded with their rule counts; a click opens the ADR at its first rule. */
export function buildArchitecture(project: Project, adrs: AdrRules[]): ListNode[] {
  const { isRetiredStatus } = loadCore();
  const docs = project.index.all('SELECT path, title, category, status, superseded FROM documents ORDER BY path') as unknown as DocRow[];
  const byPath = new Map(adrs.map((a) => [a.adrPath, a]));
  const rows = docs.filter((d) => byPath.has(d.path) || d.category === 'decision' || d.category === 'adr' || ADR_FOLDER.test(d.path));
  // An ADR with rules the scanner has not indexed yet (just written) still shows.
  for (const a of adrs) if (!rows.some((r) => r.path === a.adrPath)) rows.push({ path: a.adrPath, title: a.title, category: 'decision', status: a.status ?? null, date: null, tier: 'L3', superseded: a.active ? 0 : 1 });
  const active: ListNode[] = [];
  const retired: ListNode[] = [];
  for (const d of rows) {
    const a = byPath.get(d.path);
    const isActive = a ? a.active : !d.superseded && !isRetiredStatus(d.status ?? undefined);
    const rules = a?.rules.length ?? 0;
    const problems = a?.diagnostics.length ?? 0;
    const uri = vscode.Uri.file(noteFilePath(project.paths, d.path));
    const firstRule = a?.rules.reduce((m, r) => Math.min(m, r.line), Number.MAX_SAFE_INTEGER);
    const node: ListNode = {
      label: d.title,
      description: plural(rules, 'rule') + (problems ? ` · ${plural(problems, 'malformed rule')}` : ''),
      tooltip: `${a ? `${a.adrId}\n` : ''}${d.path}${d.status ? `\nstatus: ${d.status}` : ''}`,
      icon: isActive ? (rules ? 'shield' : 'law') : 'circle-slash',
      command: open(uri, firstRule && firstRule !== Number.MAX_SAFE_INTEGER ? firstRule : 1),
      contextValue: isActive ? 'k0maru.adr.active' : 'k0maru.adr.superseded',
    };
    (isActive ? active : retired).push(node);
  }
  return [
    { label: 'Active', description: plural(active.length, 'ADR'), icon: 'pass', children: active },
    { label: 'Superseded', description: plural(retired.length, 'ADR'), icon: 'history', children: retired },
  ];
}

/** Recent session logs, skills and cards. */
export function buildMemory(project: Project): ListNode[] {
  const q = (where: string, order: string, limit: number) =>
    (project.index.all(`SELECT path, title, category, status, date, tier, superseded FROM documents WHERE ${where} ORDER BY ${order} LIMIT ${limit}`) as unknown as DocRow[]).map(
      (d): ListNode => ({
        label: d.title,
        description: d.date ?? d.path,
        tooltip: d.path,
        icon: 'note',
        command: open(vscode.Uri.file(noteFilePath(project.paths, d.path))),
      }),
    );
  const logs = q("tier = 'L2'", 'date DESC, path DESC', 20);
  const skills = q("category IN ('skill', 'playbook', 'runbook') OR path LIKE '%skills/%' OR path LIKE '%playbooks/%'", 'title', 100);
  const cards = q("category IN ('concept', 'card') OR path LIKE '%cards/%' OR path LIKE '%concepts/%'", 'title', 100);
  return [
    { label: 'Recent logs', description: String(logs.length), icon: 'history', children: logs },
    { label: 'Skills', description: String(skills.length), icon: 'tools', children: skills },
    { label: 'Cards', description: String(cards.length), icon: 'symbol-class', children: cards },
  ];
}

/** Offloaded logs from the ledger, newest first, with line counts and the token reduction; a click opens the raw log. */
export function buildOffloads(refsDir: string): ListNode[] {
  const core = loadCore();
  return core.readLedgerNodes(refsDir).nodes.map((n) => {
    const file = core.findNodeFile(refsDir, n.nodeId);
    return {
      label: n.task || n.nodeId,
      description: `${n.nodeId} · ${plural(n.lines, 'line')} · −${Math.round(n.reduction * 100)}%`,
      tooltip: `${n.tokensBefore} → ${n.tokensAfter} tokens\n${n.ts}${file ? '' : '\n(raw log missing)'}`,
      icon: file ? 'file-text' : 'warning',
      command: file ? { command: 'vscode.open', title: 'Open raw log', arguments: [vscode.Uri.file(file)] } : undefined,
    };
  });
}
