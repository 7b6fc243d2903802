import type { RecallHit } from './types';

/**
 * The seed's compact wire line: `!μ:<tier>|<path>|score:<score>|links:<in>/<out> § <snippet>`, one line per hit.
 * Superseded notes say so at the start of the snippet, so an agent never takes a retired decision for a live one;
 * stale notes (code they name changed since: issue #18) say `[stale] ` there the same way. A note that is both
 * reads `[superseded] [stale] …`: retired first, the stronger word; that it is also out of date comes second.
 * A template (an ADR tool's `template.md`) says `[template] `: it is a form to fill in, not a decision.
 * Nothing else of the line changes, so a reader of the seed's format still parses it.
 */
export function renderWireLine(hit: RecallHit): string {
  const marks = (hit.superseded ? '[superseded] ' : '') + (hit.template ? '[template] ' : '') + (hit.stale ? '[stale] ' : '');
  const snippet = marks + hit.snippet.replace(/[\r\n]+/g, ' ');
  return `!μ:${hit.tier}|${hit.path}|score:${formatScore(hit.score)}|links:${hit.linksIn}/${hit.linksOut} § ${snippet}`;
}

export function renderWire(hits: RecallHit[]): string {
  return hits.map(renderWireLine).join('\n');
}

/** Full notes, each behind an HTML comment naming it; a stale one says why and since when there. */
export function renderFull(hits: RecallHit[]): string {
  return hits
    .map((h) => `<!-- ${h.path} · ${h.tier} · score ${formatScore(h.score)}${h.superseded ? ' · superseded' : ''}${h.template ? ' · template' : ''}${h.stale ? ` · stale since ${h.stale.since}: ${inComment(h.stale.reason)}` : ''} -->\n${(h.markdown ?? '').trimEnd()}`)
    .join('\n\n---\n\n');
}

/** A reason quotes commit subjects: one line, and never the `-->` that would end the comment early. */
function inComment(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').replace(/--+>/g, '->');
}

export function formatScore(score: number): string {
  return score >= 1 ? score.toFixed(2) : score.toFixed(3);
}
