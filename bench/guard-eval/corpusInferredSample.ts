// Lists the rules inferred from prose on the reference ADR corpus (../shared/corpus/adr-vault, read in place),
// sampled with a fixed seed (all of them when there are fewer than 50), as the Markdown table rows of
// corpus-inferred-sample.md; the hand judgement column is filled in by a person.
// Run: npx tsx bench/guard-eval/corpusInferredSample.ts
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAdrRules } from '../../src/core/guard/ruleParser';
import type { GuardRule } from '../../src/core/guard/types';
import { rng } from '../lib/vaultGen';

const CORPUS = join(__dirname, '..', '..', '..', 'shared', 'corpus', 'adr-vault');
const SAMPLE = 50;
const SEED = 12;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? files(p) : e.endsWith('.md') ? [p] : [];
  });
}


const all: GuardRule[] = [];
const ambiguous: string[] = [];
let adrs = 0;
const list = files(CORPUS).sort();
for (const f of list) {
  const adr = parseAdrRules(readFileSync(f, 'utf8'), relative(CORPUS, f));
  const mine = adr.active ? adr.rules.filter((r) => r.origin === 'inferred') : [];
  if (mine.length) adrs++;
  all.push(...mine);
  for (const d of adr.diagnostics) if (d.inferred) ambiguous.push(`${d.adrPath}:${d.line}: ${d.message}`);
}
const next = rng(SEED);
const shuffled = all.map((r) => ({ r, k: next() })).sort((a, b) => a.k - b.k).map((x) => x.r);
const sample = shuffled.slice(0, SAMPLE);
console.log(`${list.length} ADRs, ${adrs} active ones yield ${all.length} inferred rule(s); sample of ${sample.length} (seed ${SEED})\n`);
console.log('| # | ADR:line | sentence | derived rule | scope |');
console.log('| --- | --- | --- | --- | --- |');
sample.forEach((r, i) => {
  const scope = [r.include.length ? `in ${r.include.join(', ')}` : 'all files', r.exclude.length ? `except ${r.exclude.join(', ')}` : ''].filter(Boolean).join('; ');
  const pat = r.when ? `require /${r.pattern.source}/ when /${r.when.source}/` : `${r.kind} ${r.pattern.type === 'regex' ? `/${r.pattern.source}/` : `\`${r.pattern.source}\``} (${r.context})`;
  console.log(`| ${i + 1} | ${r.adrPath}:${r.line} | ${(r.sentence ?? '').replace(/\|/g, '\\|')} | ${pat.replace(/\|/g, '\\|')} | ${scope} |`);
});
console.log(`\nrule.ambiguous from inference (${ambiguous.length}):`);
for (const a of ambiguous) console.log(`- ${a}`);
