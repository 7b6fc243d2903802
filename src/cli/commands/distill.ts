import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { K0Error } from '../../core/errors';
import { distillSkill } from '../../core/distill';
import { locateVault } from '../../core/vault/paths';
import { EXIT, readAll, writeJson, writeLine, type Command } from '../command';

const many = (v: unknown): string[] => (v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);

export const distillCommand: Command = {
  name: 'distill',
  summary: 'Turn an error trace into a troubleshooting playbook (skill note; optional Hermes / omp SKILL.md export)',
  usage: [
    'distill [--export-hermes | --export-omp] [--dry-run] [--title T] [--hint TEXT] [--tags a,b] [FILE | < trace]',
    'distill --node node_1a2b3c4d [--export-hermes | --export-omp] [--dry-run]',
  ].join('\n'),
  options: {
    'export-hermes': { type: 'boolean' },
    'export-omp': { type: 'boolean' },
    'dry-run': { type: 'boolean' },
    title: { type: 'string' },
    hint: { type: 'string' },
    node: { type: 'string' },
    category: { type: 'string' },
    tags: { type: 'string', multiple: true },
    related: { type: 'string', multiple: true },
  },
  allowPositionals: true,
  async run({ values, positionals, vault, io, json }) {
    if (values['export-hermes'] && values['export-omp']) throw new K0Error('INVALID_ARGUMENT', '--export-hermes and --export-omp are exclusive');
    if (positionals.length > 1) throw new K0Error('INVALID_ARGUMENT', 'distill takes at most one FILE');
    const node = values.node as string | undefined;
    if (node && positionals.length) throw new K0Error('INVALID_ARGUMENT', 'give either --node or a FILE, not both');
    const file = positionals[0];
    const raw_trace = node ? undefined : file && file !== '-' ? readFileSync(resolve(io.cwd, file), 'utf8') : await readAll(io.stdin);
    const paths = locateVault({ vault, cwd: io.cwd, env: io.env });
    const r = await distillSkill(
      paths,
      {
        raw_trace,
        node_id: node,
        title: values.title as string | undefined,
        context_hint: values.hint as string | undefined,
        category: values.category as string | undefined,
        tags: many(values.tags).flatMap((t) => t.split(',')).map((t) => t.trim()).filter(Boolean),
        related_notes: many(values.related),
        dry_run: !!values['dry-run'],
        target: values['export-hermes'] ? 'hermes' : values['export-omp'] ? 'omp' : 'default',
      },
      { env: io.env },
    );
    if (json) {
      writeJson(io.stdout, r);
      return EXIT.OK;
    }
    writeLine(io.stdout, `${r.dry_run ? 'Preview' : '✓ Distilled'}: ${r.title}  [${r.runtime} · ${r.family}${r.primary?.location ? ` · ${r.primary.location}` : ''}]`);
    if (r.note) writeLine(io.stdout, `  Note: ${r.note.path} (${r.note.outcome.replace('_', ' ')})`);
    if (r.export) writeLine(io.stdout, `  ${r.export.target} skill: ${r.export.path} (${r.export.outcome.replace('_', ' ')})`);
    if (r.dry_run) writeLine(io.stdout, `\n${r.export?.text ?? r.content}`);
    return EXIT.OK;
  },
};
