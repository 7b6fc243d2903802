// Snippet placement (snippet.ts): the snippet shows the first word BM25 matched, which on the Porter-stemmed index
// (schema.ts) may be another form of the query's word than the one typed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeSnippet } from '../../../src/core/search/snippet';

const filler = 'Plain words about nothing in particular fill this part of the passage. '.repeat(6);

test('a query word in another inflection places the snippet at the form the note uses', () => {
  const text = `${filler}The card was charged twice when the gateway timed out.`;
  const s = makeSnippet(text, 'stop charging customers');
  assert.match(s, /charged twice/, s);
  assert.ok(s.startsWith('…'), 'the snippet starts past the filler');
});

test('a word that only starts like a query word does not move the snippet ("boil" is not "boilerplate")', () => {
  const text = `${filler}We generate the boilerplate of every service.`;
  assert.ok(!makeSnippet(text, 'boil').includes('boilerplate'));
  assert.match(makeSnippet(text, 'boilerplates'), /boilerplate of every/);
});

test('the first matching word wins, whichever query word it is; no match starts at the beginning', () => {
  const text = `${filler}Retries are capped. ${filler}Timeouts are short.`;
  assert.match(makeSnippet(text, 'timeout retry'), /Retries are capped/);
  assert.ok(makeSnippet(text, 'zzqxw').startsWith('Plain words'));
  assert.equal(makeSnippet('short text', 'anything'), 'short text');
});

test('words with y → i and added e stems are found ("happy" / "happiness", "agreed" / "agree")', () => {
  assert.match(makeSnippet(`${filler}Everyone was happy with it.`, 'happiness'), /happy with it/);
  assert.match(makeSnippet(`${filler}The teams agreed on one format.`, 'agree'), /agreed on one/);
});
