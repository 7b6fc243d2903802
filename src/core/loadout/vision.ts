import { existsSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import type { Project } from '../project';
import { parseNote } from '../vault/markdown';
import { noteFileFor, readRegularFile } from '../vault/noteSources';
import { VISION_TEMPLATE } from '../vault/init';

export interface Vision {
  rel: string;
  projectName?: string;
  sentence?: string;
}

/** Sections whose text is not the project's purpose (the vision template's own, and a README's usual ones). */
const NOT_VISION_SECTION = /^(core stack|stack|non-?goals?|install(ation)?|usage|getting started|build(ing)?|license|contributing|table of contents|contents|requirements|setup)$/i;

/** The placeholders of our vision template, so a user who deletes only the `<!-- -->` markers still gets no fake vision. */
const TEMPLATE_TEXTS = [...VISION_TEMPLATE.matchAll(/<!--\s*([\s\S]*?)\s*-->/g)].map((m) => normalise(m[1]));

function normalise(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

/**
 * The readable text of a paragraph, or undefined when it is not prose that can stand as a vision: HTML comments
 * (closed or not), tags, images and badges go; links keep their text; what is left must be a few real words and
 * not one of the template's placeholders.
 */
export function visionText(paragraph: string): string | undefined {
  const text = paragraph
    .replace(/<!--[\s\S]*?(-->|$)/g, ' ')
    .replace(/<\/?[a-z][^>]*>/gi, ' ')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/!\[\[[^\]]*\]\]/g, ' ')
    .replace(/\[\s*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/\[\[(?:[^\]|]*\|)?([^\]]+)\]\]/g, '$1')
    .replace(/(\*\*|__)/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (text.length < 20 || text.split(' ').filter((w) => /\p{L}{2,}/u.test(w)).length < 4) return undefined;
  const n = normalise(text);
  if (TEMPLATE_TEXTS.some((t) => t === n || t.includes(n) || n.includes(t))) return undefined;
  return text;
}

/**
 * The vision note (00_Meta/vision.md, or a meta note titled Vision), else the project README. `rel` names the
 * vision note when there is one; the sentence is the first real paragraph of the vision note and, when it only
 * holds the template (right after `k0maru init`), of the README; with neither there is no Vision line at all.
 */
export function findVision(project: Pick<Project, 'paths' | 'index'>): Vision | undefined {
  const { paths, index } = project;
  const row =
    index.get("SELECT path FROM documents WHERE lower(path) LIKE '%vision%.md' ORDER BY length(path) LIMIT 1") ??
    index.get("SELECT path FROM documents WHERE category IN ('meta', 'vision') AND lower(title) LIKE '%vision%' LIMIT 1");
  const candidates = row ? [noteFileFor(paths, String(row.path)).abs] : [];
  candidates.push(join(paths.projectRoot, 'README.md'));
  let found: Vision | undefined;
  for (const abs of candidates) {
    if (!existsSync(abs)) continue;
    let note;
    try {
      note = parseNote(readRegularFile(abs, 1024 * 1024).toString('utf8'), basename(abs)); // a FIFO README never blocks
    } catch {
      continue;
    }
    found ??= { rel: relative(paths.projectRoot, abs).split('\\').join('/'), projectName: note.title.replace(/\s*[-—:]?\s*vision\s*$/i, '').trim() || undefined };
    for (const b of note.blocks) {
      if (b.kind !== 'paragraph' || b.headingPath.some((h) => NOT_VISION_SECTION.test(h.trim()))) continue;
      const text = visionText(b.text);
      if (!text) continue;
      found.sentence = firstSentences(text, 220);
      return found;
    }
  }
  return found;
}

function firstSentences(text: string, max: number): string {
  const parts = text.match(/[^.!?]+[.!?]+(\s|$)/g) ?? [text];
  let out = '';
  for (const p of parts) {
    if ((out + p).trim().length > max) break;
    out += p;
  }
  return (out || parts[0].slice(0, max)).trim();
}
