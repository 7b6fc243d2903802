import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { generateVault } from '../../../bench/lib/vaultGen';

/**
 * The notes the parse-equivalence test runs through the parser, chunker and writer: awkward Markdown and YAML
 * written here, the real ADR corpus (read in place from ../shared), the test fixtures and a seeded generated vault.
 */

const REPO = join(__dirname, '..', '..', '..');
const CORPUS = join(REPO, '..', 'shared', 'corpus', 'adr-vault');

function markdownFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      const st = statSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) walk(p);
      else if (st.isFile() && /\.(md|markdown)$/i.test(name)) out.push(p);
    }
  };
  walk(root);
  return out.sort();
}

/** Markdown and YAML an indexer meets in the wild, the awkward cases first. */
const HOSTILE: [string, string][] = [
  ['bom-crlf.md', '\uFEFF---\r\ntitle: X\r\ntags: [a, "#B"]\r\n---\r\n# H\r\nline [[L]] #t\r\n'],
  ['cr-only.md', '---\rtitle: Y\r---\rBody\r[[Z|z]]\r'],
  ['unclosed-fm.md', '---\ntitle: never closed\n# Heading\ntext'],
  ['invalid-yaml.md', '---\ntitle: ok\nbad: [unclosed\n---\nBody text here\n'],
  ['yaml-list.md', '---\n- a\n- b\n---\n# T\n'],
  ['yaml-scalar.md', '---\njust a string\n---\nbody\n'],
  ['yaml-empty.md', '---\n---\n# Only heading\n'],
  ['yaml-dots.md', '---\ntitle: dots\n...\nafter\n'],
  ['yaml-types.md', `---\ntitle: 123\ndate: 2026-01-02\nwhen: 2026-01-02T10:00:00Z\ntags: 7\nstatus: "accepted"\nyes: yes\nno: No\nn: null\nt: ~\nf: 1.5e3\nhex: 0x1F\noct: 0o17\ninf: .inf\nnan: .NaN\nb: true\nq: 'single ''quoted'''\nc: value # comment\ncolon: a:b\nurl: http://x.y/z\n---\nx\n`],
  ['yaml-nested.md', '---\ntitle: Nested\nmeta:\n  owner: me\n  list:\n    - 1\n    - two\nanchor: &a {k: v}\nref: *a\nblock: |\n  line one\n  line two\nfolded: >\n  a\n  b\n---\n# T\n'],
  ['yaml-tags-string.md', '---\ntags: "alpha, #Beta gamma"\ncategory: decision\ntype: ignored\nsuperseded_by: adr-2\n---\ntext\n'],
  ['yaml-dup-key.md', '---\ntitle: a\ntitle: b\n---\nx\n'],
  ['yaml-tab.md', '---\ntitle:\tTabbed\n\tbad: indent\n---\nx\n'],
  ['yaml-proto.md', '---\n__proto__: {polluted: true}\nconstructor: x\n---\nx\n'],
  ['yaml-unicode.md', '---\ntitle: "Über \\u00e9"\ntags: [日本, Ünï]\n---\n# Ünïcödé #標籤\n'],
  ['yaml-spaces.md', '---   \ntitle: trailing fence spaces\n---\t\nbody\n'],
  ['yaml-bigint.md', '---\nn: 123456789012345678901234567890\n---\nx\n'],
  ['no-fm-hr.md', 'Intro\n\n---\n\nAfter rule\n---\nSetext?\n'],
  ['headings.md', '# One\n## Two `code` **bold**\n#### Four (skips three)\nSetext\n===\nSub\n---\n###### Six\n# \n#nospace\n'],
  ['links.md', 'See [[A]], [[b/B|alias]], [[C#Part]], [[#Local]], [[]], ![[img.png]], [[x|y|z]] and `[[code]]`.\n\n[md](../other/note.md#Sec%20One "t"), [no](http://x.md.com), [up](../../../escape.md), ![e](pic.md)\n\n```\n[[fenced]]\n```\n\n    [[indented code]]\n'],
  ['tags.md', '#start tag, mid #Mid-Tag/sub, (#paren) a#not, #123num, #_under `#code` \n\n# Heading #htag\n'],
  ['lists.md', '- a [[L1]]\n  - nested #n\n    1. ordered\n- b\n\n1) one\n2) two\n\n* [ ] task\n* [x] done\n'],
  ['table.md', '| a | b |\n|---|---|\n| [[T]] | `x|y` |\n| #tt | 2 |\n\ntext after\n'],
  ['quote.md', '> quoted [[Q]]\n> > nested\n>\n> - list in quote\n\nlazy\n> continuation\n'],
  ['html.md', '<div>\n[[NotALinkInHtml]]\n</div>\n\n<!-- comment [[c]] -->\n\n<details><summary>S</summary>\n\nInner [[I]]\n\n</details>\n'],
  ['refs.md', '[foo]: /url "title"\n[bar]: <other.md>\n\nUse [foo] and [bar][].\n'],
  ['fences.md', '~~~ts {x}\nconst a = 1;\n~~~\n\n````\n```\nnested\n```\n````\n\n```\nunclosed fence to end\n[[in]]\n'],
  ['empty.md', ''],
  ['whitespace.md', '   \n\n\t\n'],
  ['only-fm.md', '---\ntitle: Only\n---\n'],
  ['big-block.md', `# Big\n\n${Array.from({ length: 420 }, (_, i) => `word${i}`).join(' ')}\n\n${'short para\n\n'.repeat(30)}`],
  ['long-words.md', `${'x'.repeat(5000)} ${'y '.repeat(160)}\n`],
  ['emphasis.md', '# *A* _b_ __c__ **d** `e` ``f`g``\n\ntext **[[Bold Link]]** *#emtag*\n'],
  ['entities.md', '&amp; &#35;notatag &lt;[[E]]&gt; \\[[escaped]] \\#esc\n'],
  ['nul.md', 'a\u0000b [[N\u0000]]\n\u2028line sep #u2028\n'],
  ['deep.md', `${'> '.repeat(60)}deep [[D]]\n\n${Array.from({ length: 40 }, (_, i) => `${'  '.repeat(i)}- l${i}`).join('\n')}\n`],
  ['frontmatter-title-blank.md', '---\ntitle: "   "\n---\n# From H1\n'],
  ['yaml-fast-0.md', "---\nk: a #b\n---\nbody\n"],
  ['yaml-fast-1.md', "---\nk: a: b\n---\nbody\n"],
  ['yaml-fast-2.md', "---\nk: [a, b, ]\n---\nbody\n"],
  ['yaml-fast-3.md', "---\nk: [1, 2]\n---\nbody\n"],
  ['yaml-fast-4.md', "---\nk: True\n---\nbody\n"],
  ['yaml-fast-5.md', "---\nTrue: k\n---\nbody\n"],
  ['yaml-fast-6.md', "---\nk: 2026-1-2\n---\nbody\n"],
  ['yaml-fast-7.md', "---\nk: 007\n---\nbody\n"],
  ['yaml-fast-8.md', "---\nk: -1\n---\nbody\n"],
  ['yaml-fast-9.md', "---\nk: \"a\\tb\"\n---\nbody\n"],
  ['yaml-fast-10.md', "---\nk: é ü\n---\nbody\n"],
  ['yaml-fast-11.md', "---\nk: [\"a, b\", c]\n---\nbody\n"],
  ['yaml-fast-12.md', "---\nk: 'it''s'\n---\nbody\n"],
  ['yaml-fast-13.md', "---\nk: [a]]\n---\nbody\n"],
  ['yaml-fast-14.md', "---\nk: [\"a]\"]\n---\nbody\n"],
  ['yaml-fast-15.md', "---\nk: don't\n---\nbody\n"],
  ['yaml-fast-16.md', "---\nk: a  b\n---\nbody\n"],
  ['yaml-fast-17.md', "---\nk: x   \n---\nbody\n"],
  ['yaml-fast-18.md', "---\nk:   \n---\nbody\n"],
  ['yaml-fast-19.md', "---\nk:\n---\nbody\n"],
  ['yaml-fast-20.md', "---\nk: 2026-02-30\n---\nbody\n"],
  ['yaml-fast-21.md', "---\nk: 1234567890123456\n---\nbody\n"],
  ['yaml-fast-22.md', "---\nk: 0\n---\nbody\n"],
  ['yaml-fast-23.md', "---\nk: .5\n---\nbody\n"],
  ['yaml-fast-24.md', "---\nk: a,b\n---\nbody\n"],
  ['yaml-fast-25.md', "---\nk: [ ]\n---\nbody\n"],
  ['yaml-fast-26.md', "---\nk: []\n---\nbody\n"],
  ['yaml-fast-27.md', "---\nk: [Mixed-Case, x.y, a/b]\n---\nbody\n"],
  ['yaml-fast-28.md', "---\nk: (paren) x\n---\nbody\n"],
  ['yaml-fast-29.md', "---\nk: ~\n---\nbody\n"],
  ['yaml-fast-30.md', "---\nk: yes\n---\nbody\n"],
  ['yaml-fast-31.md', "---\nk: a\nk: b\n---\nbody\n"],
  ['yaml-fast-32.md', "---\na: 1\nb: x\n\nc: y\n---\nbody\n"],
  ['yaml-fast-33.md', "---\nk: \"\"\n---\nbody\n"],
  ['yaml-fast-34.md', "---\nk: ''\n---\nbody\n"],
  ['yaml-fast-35.md', "---\nk: [\"\", '']\n---\nbody\n"],
  ['yaml-fast-36.md', "---\nk: Null\n---\nbody\n"],
  ['yaml-fast-37.md', "---\nk: [null]\n---\nbody\n"],
  ['yaml-fast-38.md', "---\nk: [true]\n---\nbody\n"],
  ['yaml-fast-39.md', "---\nk: 1e3\n---\nbody\n"],
  ['yaml-fast-40.md', "---\nk: 0x10\n---\nbody\n"],
  ['yaml-fast-41.md', "---\nk: [a b]\n---\nbody\n"],
  ['yaml-fast-42.md', "---\nk: @x\n---\nbody\n"],
  ['yaml-fast-43.md', "---\nk: `x`\n---\nbody\n"],
  ['yaml-fast-44.md', "---\nk: *x\n---\nbody\n"],
  ['yaml-fast-45.md', "---\nk: &x y\n---\nbody\n"],
  ['yaml-fast-46.md', "---\nk: !tag y\n---\nbody\n"],
  ['yaml-fast-47.md', "---\nk: %x\n---\nbody\n"],
  ['yaml-fast-48.md', "---\nk: -x\n---\nbody\n"],
  ['yaml-fast-49.md', "---\nk: ? x\n---\nbody\n"],
  ['yaml-fast-50.md', "---\nk: | x\n---\nbody\n"],
  ['yaml-fast-51.md', "---\nk: > x\n---\nbody\n"],
  ['yaml-fast-52.md', "---\nk-dash_us: v\n---\nbody\n"],
  ['yaml-fast-53.md', "---\nK: V\n  cont: x\n---\nbody\n"],
  ['big-odd-gaps.md', `# Gaps\n\n${Array.from({ length: 330 }, (_, i) => `w${i}${['  ', '\u00a0', '\t', '\n', ' \u2003 ', '\u3000', ' '][i % 7]}`).join('')}\n`],
  ['big-exact.md', `${Array.from({ length: 150 }, (_, i) => `a${i}`).join(' ')}\n\n${Array.from({ length: 151 }, (_, i) => `b${i}`).join(' ')}\n\n${Array.from({ length: 200 }, (_, i) => `c${i}`).join(' ')}\n`],
  ['sub/dir/Note.MD', '# x\n[up](../n.md)\n'],
];

export function notes(): { rel: string; raw: string }[] {
  const out: { rel: string; raw: string }[] = HOSTILE.map(([rel, raw]) => ({ rel, raw }));
  for (const f of markdownFiles(CORPUS)) out.push({ rel: relative(CORPUS, f).split('\\').join('/'), raw: readFileSync(f, 'utf8') });
  for (const f of markdownFiles(join(REPO, 'test', 'fixtures'))) out.push({ rel: relative(join(REPO, 'test', 'fixtures'), f), raw: readFileSync(f, 'utf8') });
  const gen = mkdtempSync(join(tmpdir(), 'k0parse-eq-'));
  try {
    generateVault(gen, 300, 7);
    for (const f of markdownFiles(gen)) out.push({ rel: relative(gen, f), raw: readFileSync(f, 'utf8') });
  } finally {
    rmSync(gen, { recursive: true, force: true });
  }
  return out;
}
