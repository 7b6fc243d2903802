import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { K0Error } from '../../core/errors';
import { flushNote, MAX_CONTENT_BYTES, type FlushInput } from '../../core/flush';
import { locateVault } from '../../core/vault/paths';
import { EXIT, readAll, writeJson, writeLine, type Command } from '../command';

const many = (v: unknown): string[] => (v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);

export const flushCommand: Command = {
  name: 'flush',
  summary: 'Write a decision, log, card or skill note into the vault (conventions-aware, never overwrites, supersedes atomically)',
  usage: [
    'flush --title TITLE [--category decision|log|concept|skill|NAME] [--summary TEXT] [--tags a,b]',
    '      [--related NOTE]... [--supersedes ADR-001|TITLE|PATH]... [--date YYYY-MM-DD] [--content-file F | < stdin] [--json]',
  ].join('\n'),
  options: {
    title: { type: 'string', short: 't' },
    category: { type: 'string', short: 'c' },
    summary: { type: 'string', short: 's' },
    tags: { type: 'string', multiple: true },
    related: { type: 'string', multiple: true },
    supersedes: { type: 'string', multiple: true },
    date: { type: 'string' },
    'content-file': { type: 'string', short: 'f' },
  },
  async run({ values, vault, io, json }) {
    if (typeof values.title !== 'string') throw new K0Error('INVALID_ARGUMENT', '--title is required');
    const content = await readContent(values['content-file'] as string | undefined, io);
    const input: FlushInput = {
      title: values.title,
      content,
      summary: values.summary as string | undefined,
      category: values.category as string | undefined,
      tags: many(values.tags).flatMap((t) => t.split(',')).map((t) => t.trim()).filter(Boolean),
      related_notes: many(values.related),
      supersedes: many(values.supersedes),
      date: values.date as string | undefined,
    };
    const paths = locateVault({ vault, cwd: io.cwd, env: io.env });
    const r = await flushNote(paths, input);
    if (json) {
      writeJson(io.stdout, r);
      return EXIT.OK;
    }
    const verb = { created: 'created', versioned: 'created (new version beside a different file)', up_to_date: 'up to date, nothing written' }[r.outcome];
    writeLine(io.stdout, `${r.path}: ${verb}`);
    for (const s of r.superseded) writeLine(io.stdout, `  superseded ${s}`);
    for (const w of r.warnings) writeLine(io.stderr, `note: ${w}`);
    return EXIT.OK;
  },
};

async function readContent(file: string | undefined, io: { stdin: NodeJS.ReadableStream & { isTTY?: boolean }; cwd: string }): Promise<string> {
  if (file !== undefined && file !== '-') {
    const abs = resolve(io.cwd, file);
    let buf: Buffer;
    try {
      buf = readFileSync(abs);
    } catch (err) {
      throw new K0Error('INVALID_ARGUMENT', `cannot read --content-file ${file}: ${(err as Error).message}`);
    }
    if (buf.length > MAX_CONTENT_BYTES) throw new K0Error('FILE_TOO_LARGE', `${file} is ${buf.length} bytes; the limit for a note is ${MAX_CONTENT_BYTES}`);
    return buf.toString('utf8');
  }
  if (file === undefined && io.stdin.isTTY) {
    throw new K0Error('INVALID_ARGUMENT', 'no content: pass --content-file F or pipe the Markdown on stdin');
  }
  return readAll(io.stdin as never);
}
