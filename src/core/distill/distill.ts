import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { K0Error } from '../errors';
import { createFileExclusive } from '../fsutil/atomicWrite';
import { flushNote } from '../flush';
import { throwIfCancelled } from '../host/cancel';
import { analyzeText, findNodeFile, formatLocation, LogAnalyzer, MCP_OFFLOAD_THRESHOLD, offloadLog, validateNodeId, visibleLine, type LogAnalysis } from '../offload';
import { safeJoin, type VaultPaths } from '../vault/paths';
import { matchFamily, type ErrorFamily } from './families';
import { renderPlaybook, skillDescription, type PlaybookParts } from './playbook';
import { MAX_SKILL_NAME, renderSkill, skillName, validateSkill, type SkillFlavor } from './skillFormat';

/** Traces above this are refused inline (offload them first and pass the node id). */
export const MAX_RAW_TRACE_BYTES = 16 * 1024 * 1024;
const EXCERPT_BEFORE = 2;
const EXCERPT_AFTER = 9;

export const distillInputSchema = z
  .object({
    raw_trace: z.string().max(MAX_RAW_TRACE_BYTES, 'raw_trace is larger than 16 MB: offload it first and pass node_id').optional(),
    node_id: z.string().optional(),
    title: z.string().trim().min(1).max(200).optional(),
    context_hint: z.string().max(4000).optional(),
    category: z.string().trim().min(1).max(60).optional(),
    tags: z.array(z.string().max(60)).max(30).optional(),
    related_notes: z.array(z.string().max(300)).max(30).optional(),
    dry_run: z.boolean().optional(),
    target: z.enum(['default', 'hermes', 'omp']).optional(),
  })
  .strict();

export type DistillInput = z.input<typeof distillInputSchema>;

export interface DistillOptions {
  /** Environment for HERMES_HOME / HOME (tests pass a temp dir). */
  env?: NodeJS.ProcessEnv;
  now?: Date;
  /**
   * The caller withdrew (an MCP cancellation): checked until the note is flushed (CANCELLED, no note); once the note
   * is written the export follows, so a cancellation never leaves one without the other.
   */
  signal?: AbortSignal;
}

export interface SkillExport {
  target: 'hermes' | 'omp';
  name: string;
  path: string;
  outcome: 'created' | 'up_to_date' | 'versioned' | 'preview';
  text: string;
}

export interface DistillResult {
  dry_run: boolean;
  title: string;
  runtime: string;
  family: string;
  primary?: { code: string; kind: string; message: string; location?: string; test?: string; chain?: { code: string; message: string; location?: string }[] };
  /** The playbook Markdown (the note body). */
  content: string;
  summary: string;
  /** The vault note written through the FlushEngine (absent on dry runs). */
  note?: { path: string; outcome: string };
  export?: SkillExport;
  /** The node holding the raw trace, when there is one. */
  node_id?: string;
}

async function analyzeNode(file: string): Promise<{ analysis: LogAnalysis; excerptAt: (line: number) => Promise<string[]> }> {
  const a = new LogAnalyzer();
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) a.push(visibleLine(line));
  const analysis = a.finish();
  return {
    analysis,
    excerptAt: async (at) => {
      const out: string[] = [];
      let n = 0;
      for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
        n++;
        if (n >= at - EXCERPT_BEFORE && n <= at + EXCERPT_AFTER) out.push(visibleLine(line).slice(0, 300));
        if (n > at + EXCERPT_AFTER) break;
      }
      return out;
    },
  };
}

function excerptOfText(text: string, at: number): string[] {
  const lines = text.split('\n');
  return lines.slice(Math.max(0, at - 1 - EXCERPT_BEFORE), at + EXCERPT_AFTER).map((l) => visibleLine(l).slice(0, 300));
}

function skillsDir(target: 'hermes' | 'omp', paths: VaultPaths, env: NodeJS.ProcessEnv): string {
  if (target === 'omp') return join(paths.projectRoot, '.omp', 'skills');
  const home = env.HERMES_HOME ? resolve(env.HERMES_HOME) : join(env.HOME ?? homedir(), '.hermes');
  return join(home, 'skills');
}

/** Never overwrite a different skill: same bytes → up to date, else the next free `-vN` name. */
function writeSkill(dir: string, base: string, render: (name: string) => string, flavor: SkillFlavor): Omit<SkillExport, 'target'> {
  for (let v = 1; v < 1000; v++) {
    const suffix = v === 1 ? '' : `-v${v}`;
    const name = base.slice(0, MAX_SKILL_NAME - suffix.length).replace(/-+$/, '') + suffix;
    const text = render(name);
    const check = validateSkill(text, flavor, name);
    if (!check.ok) throw new K0Error('INTERNAL', `generated SKILL.md is invalid: ${check.errors.join('; ')}`);
    const file = safeJoin(dir, join(name, 'SKILL.md'));
    if (existsSync(file)) {
      if (readFileSync(file, 'utf8') === text) return { name, path: file, outcome: 'up_to_date', text };
      continue;
    }
    if (createFileExclusive(file, text)) return { name, path: file, outcome: v === 1 ? 'created' : 'versioned', text };
  }
  throw new K0Error('WRITE_CONFLICT', `could not find a free skill name for ${base} in ${dir}`);
}

/**
 * Distills a failure into a reusable playbook: classify the runtime, map the primary error to a family of the
 * table, render symptom / root cause / diagnostic steps / fix pattern / verify / source, write it as a `skill`
 * note through the FlushEngine and, for `target: hermes | omp`, export a SKILL.md that validates.
 */
export async function distillSkill(paths: VaultPaths, raw: unknown, opts: DistillOptions = {}): Promise<DistillResult> {
  const parsed = distillInputSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const msg = parsed.error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ');
    throw new K0Error('INVALID_ARGUMENT', `invalid distill input: ${msg}`);
  }
  const input = parsed.data;
  const env = opts.env ?? process.env;
  if (input.raw_trace === undefined && input.node_id === undefined) throw new K0Error('INVALID_ARGUMENT', 'distill needs raw_trace or node_id');

  let analysis: LogAnalysis;
  let excerpt: (line: number) => Promise<string[]>;
  let nodeId: string | undefined;
  if (input.raw_trace !== undefined) {
    if (!input.raw_trace.trim()) throw new K0Error('INVALID_ARGUMENT', 'raw_trace is empty');
    const text = input.raw_trace;
    analysis = analyzeText(text);
    excerpt = async (at) => excerptOfText(text, at);
    if (input.node_id !== undefined) nodeId = validateNodeId(input.node_id);
  } else {
    nodeId = validateNodeId(input.node_id);
    const file = findNodeFile(paths.refsDir, nodeId);
    if (!file) throw new K0Error('NODE_NOT_FOUND', `no offloaded log with id ${nodeId}`);
    const node = await analyzeNode(file);
    throwIfCancelled(opts.signal, 'distill');
    analysis = node.analysis;
    excerpt = node.excerptAt;
  }

  const primary = analysis.primary;
  const runtime = analysis.runtime;
  const family: ErrorFamily = matchFamily(primary, runtime);
  const codeInTitle = primary && !skillName(family.title).includes(skillName(primary.code)) && !['panic', 'fatal error'].includes(primary.code) ? ` (${primary.code})` : '';
  const title = input.title ?? `${family.title}${codeInTitle}`;
  const dryRun = input.dry_run ?? false;

  // A long inline trace is kept as an offload node so the playbook can point at the raw evidence.
  if (!nodeId && !dryRun && analysis.lines > MCP_OFFLOAD_THRESHOLD) {
    const r = await offloadLog(paths, { text: input.raw_trace!, taskName: `distill-${family.id}`, threshold: MCP_OFFLOAD_THRESHOLD, source: 'api', signal: opts.signal, keepNode: true });
    nodeId = r.nodeId;
  }
  const when = (opts.now ?? new Date()).toISOString().slice(0, 10);
  const source = nodeId
    ? // A vault note is read by agents and people alike: name both ways to the raw text.
      `Offloaded log \`${nodeId}\` (${analysis.lines} lines; raw text via \`inspect_log_node\` or \`k0maru inspect ${nodeId}\`), distilled ${when}`
    : `Inline trace (${analysis.lines} lines), distilled ${when}`;

  const parts: PlaybookParts = {
    title,
    family,
    runtime,
    primary,
    analysis,
    excerpt: primary ? await excerpt(primary.logLine) : [],
    source,
    contextHint: input.context_hint,
  };
  const content = renderPlaybook(parts);
  const summary = skillDescription(parts);
  const tags = [...new Set([...family.tags, runtime, ...(input.tags ?? [])].map((t) => t.trim()).filter(Boolean))];

  const result: DistillResult = {
    dry_run: dryRun,
    title,
    runtime,
    family: family.id,
    primary: primary && {
      code: primary.code,
      kind: primary.kind,
      message: primary.message,
      location: formatLocation(primary.location) || undefined,
      ...(primary.test ? { test: primary.test } : {}),
      // Final exception first, then its causes, each with where it surfaced.
      chain: primary.chain?.map((l) => ({ code: l.code, message: l.message, ...(l.location ? { location: formatLocation(l.location) } : {}) })),
    },
    content,
    summary,
    node_id: nodeId,
  };

  const target = input.target ?? 'default';
  const flavor: SkillFlavor | undefined = target === 'hermes' ? 'hermes' : target === 'omp' ? 'omp' : undefined;
  const base = skillName(input.title ?? family.id);
  const renderFor = (name: string) => renderSkill(flavor!, { name, description: summary, body: `# ${title}\n\n${content}`, tags, category: 'debugging' });

  if (dryRun) {
    if (flavor && (target === 'hermes' || target === 'omp')) {
      const dir = skillsDir(target, paths, env);
      const file = join(dir, base, 'SKILL.md');
      result.export = { target, name: base, path: target === 'omp' ? relative(paths.projectRoot, file) : file, outcome: 'preview', text: renderFor(base) };
    }
    return result;
  }

  const note = await flushNote(paths, { title, content, category: input.category ?? 'skill', tags, related_notes: input.related_notes, summary }, { signal: opts.signal });
  result.note = { path: note.path, outcome: note.outcome };
  if (flavor && (target === 'hermes' || target === 'omp')) {
    const dir = skillsDir(target, paths, env);
    const w = writeSkill(dir, base, renderFor, flavor);
    result.export = { target, ...w, path: target === 'omp' ? relative(paths.projectRoot, w.path) : w.path };
  }
  return result;
}

