import type { ChangedFile } from './types';

/**
 * Unified diff → the lines each file adds, numbered in the new file. Handles `git diff` output with several
 * files and hunks, renames/copies, new and deleted files, binary patches, mode-only changes,
 * `\ No newline at end of file`, CRLF and quoted non-ASCII paths, and plain `diff -u` output. Hunk line counts
 * are tracked so a removed line that looks like a header (`--- x` from removing `-- x`) stays a hunk line.
 * A `+` line before any `@@` (a hand-written snippet such as `diff --git a/x b/x\n+code`) is accepted and
 * numbered from 1: agents send such fragments to the MCP tool.
 */
export function parseUnifiedDiff(text: string): ChangedFile[] {
  const lines = text.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  const files: ChangedFile[] = [];
  let cur: ChangedFile | undefined;
  let oldLeft = 0;
  let newLeft = 0;
  let newLine = 0;
  let inBinaryPatch = false;
  let fromGitHeader = false;
  let hunkSeen = false;
  let expectPlus = false;
  let plainOld: string | null = null;

  const start = (path: string, oldPath?: string): ChangedFile => {
    cur = { path, oldPath, status: 'modified', binary: false, added: [], newSideLines: new Map() };
    files.push(cur);
    inBinaryPatch = false;
    hunkSeen = false;
    oldLeft = newLeft = 0;
    newLine = 0;
    return cur;
  };

  for (let raw of lines) {
    if (raw.endsWith('\r')) raw = raw.slice(0, -1);
    if (cur && (oldLeft > 0 || newLeft > 0)) {
      const c = raw[0];
      if (c === '+') {
        cur.added.push({ line: newLine, text: raw.slice(1) });
        cur.newSideLines.set(newLine, raw.slice(1));
        newLine++;
        newLeft--;
        continue;
      }
      if (c === '-') {
        oldLeft--;
        continue;
      }
      if (c === ' ' || raw === '') {
        cur.newSideLines.set(newLine, raw.slice(1));
        newLine++;
        oldLeft--;
        newLeft--;
        continue;
      }
      if (c === '\\') continue; // "\ No newline at end of file"
      // A malformed count: fall through and treat the line as a header.
      oldLeft = newLeft = 0;
    }
    if (raw.startsWith('\\')) continue;
    if (raw.startsWith('diff --git ')) {
      const [a, b] = splitGitHeader(raw.slice(11));
      start(b ?? a ?? '', a !== b ? a : undefined);
      fromGitHeader = true;
      expectPlus = false;
      continue;
    }
    if (inBinaryPatch) continue;
    if (raw.startsWith('diff ') && !raw.startsWith('diff --git')) {
      cur = undefined; // plain `diff -u a b`: the ---/+++ lines name the file
      continue;
    }
    const hunk = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(raw);
    if (hunk) {
      if (!cur) start('unknown');
      hunkSeen = true;
      expectPlus = false;
      oldLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
      newLeft = hunk[4] === undefined ? 1 : Number(hunk[4]);
      newLine = Number(hunk[3]);
      continue;
    }
    if (raw.startsWith('--- ')) {
      const p = stripPrefix(unquote(cutTimestamp(raw.slice(4))), 'a/');
      if (cur && fromGitHeader && !hunkSeen) {
        if (p === null) cur.status = 'added';
      } else {
        plainOld = p; // plain `diff -u`: the file starts at the +++ line
        expectPlus = true;
      }
      continue;
    }
    if (raw.startsWith('+++ ') && (expectPlus || (cur && fromGitHeader && !hunkSeen))) {
      const p = stripPrefix(unquote(cutTimestamp(raw.slice(4))), 'b/');
      if (expectPlus) {
        const f = start(p ?? plainOld ?? 'unknown', p && plainOld && plainOld !== p ? plainOld : undefined);
        fromGitHeader = false;
        if (plainOld === null) f.status = 'added';
        if (p === null) f.status = 'deleted';
        expectPlus = false;
      } else if (cur) {
        if (p === null) cur.status = 'deleted';
        else cur.path = p;
      }
      continue;
    }
    if (!cur) {
      if (raw.startsWith('+') && raw.length) start('unknown');
      else continue;
    }
    const file = cur!;
    if (raw.startsWith('new file mode')) file.status = 'added';
    else if (raw.startsWith('deleted file mode')) file.status = 'deleted';
    else if (raw.startsWith('rename from ')) { file.oldPath = unquote(raw.slice(12)); file.status = 'renamed'; }
    else if (raw.startsWith('rename to ')) { file.path = unquote(raw.slice(10)); file.status = 'renamed'; }
    else if (raw.startsWith('copy from ')) { file.oldPath = unquote(raw.slice(10)); file.status = 'copied'; }
    else if (raw.startsWith('copy to ')) { file.path = unquote(raw.slice(8)); file.status = 'copied'; }
    else if (raw.startsWith('old mode ') || raw.startsWith('new mode ')) { if (file.status === 'modified') file.status = 'mode'; }
    else if (raw.startsWith('Binary files ') || raw === 'GIT binary patch') { file.binary = true; inBinaryPatch = raw === 'GIT binary patch'; }
    else if (raw.startsWith('+') && !raw.startsWith('+++ ')) {
      // Tolerated fragment without a hunk header.
      newLine = Math.max(newLine, 1);
      file.added.push({ line: newLine, text: raw.slice(1) });
      file.newSideLines.set(newLine, raw.slice(1));
      newLine++;
    }
  }
  for (const f of files) if (f.status === 'mode' && (f.added.length || f.newSideLines.size)) f.status = 'modified';
  return files;
}

function cutTimestamp(s: string): string {
  const tab = s.indexOf('\t');
  return tab >= 0 ? s.slice(0, tab) : s.trimEnd();
}

/** `a/x` → `x`; `/dev/null` → null; a path without the prefix (diff -u, --no-prefix) is kept as is. */
function stripPrefix(p: string, prefix: string): string | null {
  if (p === '/dev/null') return null;
  return p.startsWith(prefix) ? p.slice(prefix.length) : p;
}

/** Git's C-style quoted paths: `"a/caf\303\251.ts"` → `a/café.ts` (octal escapes are UTF-8 bytes). */
export function unquote(s: string): string {
  if (!(s.length >= 2 && s.startsWith('"') && s.endsWith('"'))) return s;
  const bytes: number[] = [];
  const body = s.slice(1, -1);
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, '"': 34, '\\': 92, a: 7, b: 8, f: 12, v: 11 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '\\') {
      const oct = /^[0-7]{3}/.exec(body.slice(i + 1));
      if (oct) { bytes.push(parseInt(oct[0], 8)); i += 3; continue; }
      const e = body[i + 1];
      bytes.push(simple[e] ?? e.charCodeAt(0));
      i++;
      continue;
    }
    bytes.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** `a/x b/y` (possibly quoted, possibly containing spaces) → [x, y]. */
function splitGitHeader(rest: string): [string | undefined, string | undefined] {
  if (rest.startsWith('"')) {
    const end = rest.indexOf('" ', 1);
    const a = unquote(rest.slice(0, end + 1));
    const b = unquote(rest.slice(end + 2));
    return [stripPrefix(a, 'a/') ?? undefined, stripPrefix(b, 'b/') ?? undefined];
  }
  if (rest.endsWith('"')) {
    const startB = rest.lastIndexOf(' "');
    return [stripPrefix(rest.slice(0, startB), 'a/') ?? undefined, stripPrefix(unquote(rest.slice(startB + 1)), 'b/') ?? undefined];
  }
  // Unquoted: when old and new names are equal the header is `a/P b/P`, so split in the middle.
  const mid = (rest.length - 1) / 2;
  if (Number.isInteger(mid) && rest[mid] === ' ' && rest.slice(2, mid) === rest.slice(mid + 3)) {
    const p = rest.slice(2, mid);
    return [p, p];
  }
  const idx = rest.indexOf(' b/');
  if (idx >= 0) return [stripPrefix(rest.slice(0, idx), 'a/') ?? undefined, rest.slice(idx + 3)];
  const sp = rest.indexOf(' ');
  return sp >= 0 ? [rest.slice(0, sp), rest.slice(sp + 1)] : [rest, rest];
}
