import { parseDocument } from 'yaml';
import { K0Error } from '../errors';
import { parseFrontmatter } from '../vault/frontmatter';

/**
 * Sets top-level frontmatter keys of an existing note while leaving every other byte alone: the body, the
 * other frontmatter lines, the BOM and the line endings. Each key is edited as whole lines (its line plus any
 * indented continuation); a key that is missing is added just before the closing `---`; a note without
 * frontmatter gets one prepended. The result is re-parsed to prove the edit did what it says.
 */
export function setFrontmatterFields(raw: string, fields: Record<string, unknown>, where = 'note'): string {
  const bom = raw.startsWith('\uFEFF') ? '\uFEFF' : '';
  const text = raw.slice(bom.length);
  const eol = /\r\n/.test(text.slice(0, 4096)) ? '\r\n' : '\n';
  const lines = text.split(/\n/); // keep any \r on the lines: untouched lines must stay byte-identical
  const strip = (l: string) => l.replace(/\r$/, '');

  const hasOpen = lines.length > 1 && /^---[ \t]*$/.test(strip(lines[0]));
  let close = -1;
  if (hasOpen) {
    for (let i = 1; i < lines.length; i++) {
      if (/^(---|\.\.\.)[ \t]*$/.test(strip(lines[i]))) {
        close = i;
        break;
      }
    }
  }

  if (!hasOpen || close < 0) {
    if (hasOpen) throw new K0Error('INVALID_ARGUMENT', `${where}: frontmatter block is not closed with ---; fix it first`);
    const block = ['---', ...Object.entries(fields).map(([k, v]) => `${k}: ${yamlValue(v)}`), '---'].join(eol);
    return bom + block + eol + text;
  }

  const before = parseFrontmatter(text.replace(/\r\n/g, '\n'));
  if (before.error) {
    throw new K0Error('INVALID_ARGUMENT', `${where}:${before.error.line}: invalid frontmatter (${before.error.message}); fix it first`);
  }

  const fm = lines.slice(1, close);
  for (const [key, value] of Object.entries(fields)) {
    const line = `${key}: ${yamlValue(value)}${eol === '\r\n' ? '\r' : ''}`;
    const at = fm.findIndex((l) => new RegExp(`^${escapeRe(key)}[ \\t]*:`).test(l) || new RegExp(`^["']${escapeRe(key)}["'][ \\t]*:`).test(l));
    if (at < 0) {
      fm.push(line);
      continue;
    }
    let end = at + 1;
    // Continuation of the old value: indented lines, or a block sequence written at column 0.
    while (end < fm.length && /^([ \t]+\S|[ \t]*\r?$|- )/.test(fm[end]) && !isLastBlank(fm, end)) end++;
    fm.splice(at, end - at, line);
  }
  const out = bom + [lines[0], ...fm, ...lines.slice(close)].join('\n');

  // Prove it: the new frontmatter parses and holds exactly what we set; otherwise fall back to the YAML
  // document API (re-emits the frontmatter block only; the body stays byte-identical either way).
  const after = parseFrontmatter(out.slice(bom.length).replace(/\r\n/g, '\n'));
  if (!after.error && Object.entries(fields).every(([k, v]) => JSON.stringify(after.data[k]) === JSON.stringify(v))) return out;
  const doc = parseDocument(lines.slice(1, close).map(strip).join('\n'));
  for (const [k, v] of Object.entries(fields)) doc.set(k, v);
  const yamlText = doc.toString().replace(/\n$/, '').split('\n').join(eol);
  return bom + [strip(lines[0]), yamlText, ''].join(eol) + lines.slice(close).join('\n');
}

/** Blank lines belong to a value only when more of the value follows them. */
function isLastBlank(fm: string[], i: number): boolean {
  if (!/^[ \t]*\r?$/.test(fm[i])) return false;
  for (let j = i + 1; j < fm.length; j++) if (!/^[ \t]*\r?$/.test(fm[j])) return !/^([ \t]+\S|- )/.test(fm[j]);
  return true;
}

/** A YAML value on one line: plain when it is a safe word, otherwise JSON (valid YAML 1.2 flow). */
export function yamlValue(v: unknown): string {
  if (typeof v === 'string' && /^[A-Za-z][\w .-]*$/.test(v) && !/^(true|false|null|yes|no|on|off|~)$/i.test(v) && !/[ .-]$/.test(v) && !v.includes(': ')) {
    return v;
  }
  return JSON.stringify(v);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
