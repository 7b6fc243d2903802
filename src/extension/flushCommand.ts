import * as vscode from 'vscode';
import type { FlushInput, FlushResult } from '../core/flush';
import type { Project } from '../core/project';
import { loadCore, loadTools } from './coreLoader';
import { openAt, reportErrors, requireProject, selectedText, type CommandHost } from './commandHost';

/** Arguments that replace the prompts of "Flush Decision" (all optional except what the core requires). */
export interface FlushArgs {
  title: string;
  summary?: string;
  content?: string;
  category?: string;
  tags?: string[];
  related_notes?: string[];
  supersedes?: string[];
  /** Open the written note (default: only when prompted). */
  open?: boolean;
}

const CATEGORIES = [
  { label: 'decision', description: 'an architecture decision (ADR); can supersede earlier ones' },
  { label: 'log', description: 'what happened in this session' },
  { label: 'concept', description: 'a concept card' },
  { label: 'skill', description: 'a reusable procedure' },
];

interface NoteRow {
  path: string;
  title: string;
  category: string | null;
  superseded: number;
}

function listNotes(project: Project): NoteRow[] {
  return project.index.all('SELECT path, title, category, superseded FROM documents ORDER BY path') as unknown as NoteRow[];
}

/** What the command returns: the flush's result and the rule ids of superseded ADRs that stopped applying. */
export type FlushCommandResult = FlushResult & { droppedRules: string[] };

/** Flush a note through the core's flushNote: prompts for what the MCP `flush_session` tool takes. */
export async function flushDecision(host: CommandHost, args?: FlushArgs): Promise<FlushCommandResult | undefined> {
  const project = await requireProject(host, 'Flush Decision');
  if (!project) return undefined;
  const input = args ? fromArgs(args) : await prompt(project);
  if (!input) return undefined;
  return reportErrors(host, 'Flush Decision', async () => {
    const tools = loadTools();
    // Superseding turns the old ADRs' rules off: say which ones a replacement without them lifts, before writing.
    const supersedes = typeof input.supersedes === 'string' ? [input.supersedes] : (input.supersedes ?? []);
    const dropped = supersedes.length ? tools.droppedRules(await host.rules(), supersedes, input.content) : [];
    const warning = dropped.length ? tools.describeDropped(dropped) : undefined;
    if (warning && !args) {
      const go = await vscode.window.showWarningMessage(`K0maru: ${warning}`, { modal: true, detail: dropped.map((d) => `${d.adrId} ${d.ruleId}: ${d.text}`).join('\n') }, 'Supersede Anyway');
      if (go !== 'Supersede Anyway') return undefined;
    } else if (warning) void vscode.window.showWarningMessage(`K0maru: ${warning}`);
    const flushed = await tools.flushNote(project.paths, input);
    // The core's flush states the dropped rules among its warnings (the same words as `warning`): not said twice.
    const r: FlushCommandResult = { ...flushed, droppedRules: dropped.map((d) => d.ruleId) };
    host.log.info(`flush: ${r.outcome} ${r.path}${r.superseded.length ? `; superseded ${r.superseded.join(', ')}` : ''}`);
    for (const w of r.warnings) host.log.warn(`flush: ${w}`);
    if (args?.open ?? !args) await openAt(vscode.Uri.file(r.absPath));
    if (!args) {
      const sup = r.superseded.length ? ` It supersedes ${r.superseded.join(', ')}.` : '';
      void vscode.window.showInformationMessage(`K0maru: ${r.outcome === 'up_to_date' ? 'already in the vault' : 'wrote'} ${r.path}.${sup}`);
    }
    // The watcher would notice too; asking now makes the index (and the views) current before we return.
    void host.controller()?.scan('command').catch(() => undefined);
    return r;
  });
}

function fromArgs(a: FlushArgs): FlushInput {
  return {
    title: a.title,
    summary: a.summary,
    // A decision written without a body starts from the ADR template (with its Invariants section).
    content: a.content ?? ((a.category ?? 'decision') === 'decision' ? loadTools().decisionTemplate(a.summary ?? '') : (a.summary ?? '')),
    category: a.category ?? 'decision',
    tags: a.tags,
    related_notes: a.related_notes,
    supersedes: a.supersedes,
  };
}

async function prompt(project: Project): Promise<FlushInput | undefined> {
  const title = await vscode.window.showInputBox({
    title: 'K0maru: Flush Decision (1/6)', prompt: 'Title', placeHolder: 'e.g. Use a Redis lock around card charges',
    validateInput: (v) => (v.trim() ? undefined : 'A title is required'),
  });
  if (!title) return undefined;
  const summary = await vscode.window.showInputBox({ title: 'K0maru: Flush Decision (2/6)', prompt: 'One-paragraph summary (the note body when nothing is selected)' });
  if (summary === undefined) return undefined;
  const category = await vscode.window.showQuickPick(CATEGORIES, { title: 'K0maru: Flush Decision (3/6) — category' });
  if (!category) return undefined;
  const tagText = await vscode.window.showInputBox({ title: 'K0maru: Flush Decision (4/6)', prompt: 'Tags, comma-separated (optional)' });
  if (tagText === undefined) return undefined;
  const notes = listNotes(project);
  const related = await vscode.window.showQuickPick(
    notes.map((n) => ({ label: n.title, description: n.path })),
    { title: 'K0maru: Flush Decision (5/6) — related notes (optional)', canPickMany: true, matchOnDescription: true },
  );
  if (!related) return undefined;
  let supersedes: string[] = [];
  if (category.label === 'decision') {
    // The ADRs by the core's one rule (category before folder), as the Architecture view lists them.
    const candidates = loadCore().listAdrNotes(project.index).filter((n) => !n.superseded);
    const picked = await vscode.window.showQuickPick(
      candidates.map((n) => ({ label: n.title, description: n.path })),
      { title: 'K0maru: Flush Decision (6/6) — decisions this one supersedes (optional)', canPickMany: true, matchOnDescription: true },
    );
    if (!picked) return undefined;
    supersedes = picked.map((p) => p.description);
  }
  return {
    title,
    summary: summary || undefined,
    content: selectedText() ?? (category.label === 'decision' ? loadTools().decisionTemplate(summary) : summary),
    category: category.label,
    tags: tagText.split(',').map((t) => t.trim()).filter(Boolean),
    related_notes: related.map((r) => r.description),
    supersedes,
  };
}
