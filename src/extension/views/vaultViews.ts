import * as vscode from 'vscode';
import type { AdrRules } from '../../core/guard/types';
import type { Project } from '../../core/project';
import { loadCore } from '../coreLoader';
import type { ListNode } from './listTree';
import { noteFilePath } from '../../core/vault/notePath';
import { ruleCounts } from '../../core/guard/ruleCounts';
import { formatReductionPct } from '../../shared/format';
import type { AdrNoteRow } from '../../core/index/adrNotes';
import { buildStale } from './staleGroup';
import type { StaleNoteRef } from '../staleCommands';

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

const open = (uri: vscode.Uri, line = 1): vscode.Command => ({ command: 'k0maru.openAdr', title: 'Open', arguments: [uri, line] });
/** Appended to a stale ADR row's contextValue: Show Changes Since This Note and Mark Verified show on it. */
export const STALE_ADR_SUFFIX = '.stale';

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * ADRs grouped active / superseded with their rule counts; a click opens the ADR at its first rule. Which notes are
 * ADRs is the core's answer (listAdrNotes: category before folder), plus every note that holds guard rules. No ADR
 * at all → no nodes, so the view's welcome text shows.
 */
export function buildArchitecture(project: Project, adrs: AdrRules[]): ListNode[] {
  const { isRetiredStatus, listAdrNotes, listStale } = loadCore();
  // A decision whose anchored code moved on says so here too, with the Memory view's Stale actions.
  const stale = new Map(listStale(project.index).map((s) => [s.path, s.info]));
  const byPath = new Map(adrs.map((a) => [a.adrPath, a]));
  const notes = listAdrNotes(project.index);
  const listed = new Set(notes.map((n) => n.path));
  // Rule sources outside the ADR notes (a note with a guard section anywhere), and ADRs with rules the scanner
  // has not indexed yet (just written), still show.
  const others = project.index.all('SELECT path, title, category, status, date, superseded, frontmatter FROM documents') as unknown as AdrNoteRow[];
  const rows: AdrNoteRow[] = [...notes, ...others.filter((d) => byPath.has(d.path) && !listed.has(d.path))].sort((a, b) => a.path.localeCompare(b.path));
  for (const a of adrs) if (!rows.some((r) => r.path === a.adrPath)) rows.push({ path: a.adrPath, title: a.title, category: 'decision', status: a.status ?? null, date: null, superseded: !a.active, frontmatter: null });
  const active: ListNode[] = [];
  const retired: ListNode[] = [];
  for (const d of rows) {
    const a = byPath.get(d.path);
    const isActive = a ? a.active : !Number(d.superseded) && !isRetiredStatus(d.status ?? undefined);
    const rules = a?.rules.length ?? 0;
    const problems = a?.diagnostics.length ?? 0;
    const uri = vscode.Uri.file(noteFilePath(project.paths, d.path));
    const firstRule = a?.rules.reduce((m, r) => Math.min(m, r.line), Number.MAX_SAFE_INTEGER);
    const staleInfo = stale.get(d.path);
    const node: ListNode = {
      label: d.title,
      description: plural(rules, 'rule') + (problems ? ` · ${plural(problems, 'malformed rule')}` : '') + (staleInfo ? ' · ⚠ stale' : ''),
      tooltip: `${a ? `${a.adrId}\n` : ''}${d.path}${d.status ? `\nstatus: ${d.status}` : ''}${staleInfo ? `\n⚠ ${staleInfo.reason}` : ''}`,
      icon: isActive ? (rules ? 'shield' : 'law') : 'circle-slash',
      command: open(uri, firstRule && firstRule !== Number.MAX_SAFE_INTEGER ? firstRule : 1),
      // A stale ADR's row gets the Memory view's Stale actions (package.json menus match the `.stale` suffix).
      contextValue: (isActive ? 'k0maru.adr.active' : 'k0maru.adr.superseded') + (staleInfo ? STALE_ADR_SUFFIX : ''),
      ...(staleInfo ? { arg: { path: d.path } satisfies StaleNoteRef } : {}),
    };
    (isActive ? active : retired).push(node);
  }
  if (!active.length && !retired.length) return [];
  // The rule tally is the guard's own count (the CLI report and the log say the same).
  const counts = ruleCounts(adrs);
  return [
    { label: 'Active', description: `${plural(active.length, 'ADR')} · ${plural(counts.rules, 'rule')}`, icon: 'pass', children: active },
    { label: 'Superseded', description: plural(retired.length, 'ADR'), icon: 'history', children: retired },
  ];
}

/** Stale notes (when any), recent session logs, skills and cards. */
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
  const stale = buildStale(project);
  // Nothing remembered yet → no nodes, so the view's welcome text shows.
  if (!logs.length && !skills.length && !cards.length && !stale.group) return [];
  return [
    // What needs a person's look first; "off" (staleness not computed) last, as a note on the rest.
    ...(stale.group ? [stale.group] : []),
    { label: 'Recent logs', description: String(logs.length), icon: 'history', children: logs },
    { label: 'Skills', description: String(skills.length), icon: 'tools', children: skills },
    { label: 'Cards', description: String(cards.length), icon: 'symbol-class', children: cards },
    ...(stale.off ? [stale.off] : []),
  ];
}

/** Offloaded logs from the ledger, newest first, with line counts and the token reduction; a click opens the raw log. */
export function buildOffloads(refsDir: string): ListNode[] {
  const core = loadCore();
  return core.readLedgerNodes(refsDir).nodes.map((n) => {
    const file = core.findNodeFile(refsDir, n.nodeId);
    return {
      label: n.task || n.nodeId,
      description: `${n.nodeId} · ${plural(n.lines, 'line')} · ${n.reduction < 0 ? '+' : '−'}${formatReductionPct(Math.abs(n.reduction))}%`,
      tooltip: `${n.tokensBefore} → ${n.tokensAfter} tokens\n${n.ts}${file ? '' : '\n(raw log missing)'}`,
      icon: file ? 'file-text' : 'warning',
      command: file ? { command: 'vscode.open', title: 'Open raw log', arguments: [vscode.Uri.file(file)] } : undefined,
    };
  });
}
