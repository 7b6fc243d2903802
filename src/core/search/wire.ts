import type { RecallHit } from './types';

/**
 * The seed's compact wire line: `!μ:<tier>|<path>|score:<score>|links:<in>/<out> § <snippet>`, one line per hit.
 * Superseded notes say so at the start of the snippet, so an agent never takes a retired decision for a live one.
 */
export function renderWireLine(hit: RecallHit): string {
  const snippet = (hit.superseded ? '[superseded] ' : '') + hit.snippet.replace(/[\r\n]+/g, ' ');
  return `!μ:${hit.tier}|${hit.path}|score:${formatScore(hit.score)}|links:${hit.linksIn}/${hit.linksOut} § ${snippet}`;
}

export function renderWire(hits: RecallHit[]): string {
  return hits.map(renderWireLine).join('\n');
}

export function renderFull(hits: RecallHit[]): string {
  return hits
    .map((h) => `<!-- ${h.path} · ${h.tier} · score ${formatScore(h.score)}${h.superseded ? ' · superseded' : ''} -->\n${(h.markdown ?? '').trimEnd()}`)
    .join('\n\n---\n\n');
}

export function formatScore(score: number): string {
  return score >= 1 ? score.toFixed(2) : score.toFixed(3);
}
