import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { analyzeText, MAX_DIAGRAM_LINES, renderMermaid } from '../../../src/core/offload';
import { LOG_DIR } from './fixtures';

/**
 * The analyzer on damaged real logs: cut anywhere, lines dropped, two logs interleaved, junk and control bytes
 * spliced in. It must always return an analysis (never throw), keep its bounds, and render a diagram of at most
 * 15 lines; a location it reports is always a line number ≥ 1.
 */
const logs = [
  ...readdirSync(LOG_DIR).filter((f) => f.endsWith('.log')).map((f) => join(LOG_DIR, f)),
  ...readdirSync(join(__dirname, 'captured')).filter((f) => f.endsWith('.log')).map((f) => join(__dirname, 'captured', f)),
].map((f) => readFileSync(f, 'utf8').split('\n').slice(0, 400));

test('damaged real logs: cut, thinned, interleaved, with junk spliced in — an analysis every time', () => {
  fc.assert(
    fc.property(
      fc.nat(logs.length - 1),
      fc.nat(logs.length - 1),
      fc.nat(400),
      fc.integer({ min: 1, max: 5 }),
      fc.array(fc.tuple(fc.nat(400), fc.string({ unit: 'binary', maxLength: 200 })), { maxLength: 5 }),
      (a, b, cut, every, junk) => {
        const lines: string[] = [];
        const x = logs[a].slice(0, cut);
        const y = logs[b];
        for (let i = 0; i < Math.max(x.length, y.length); i++) {
          if (i < x.length && i % every === 0) lines.push(x[i]);
          if (i < y.length) lines.push(y[i]);
        }
        for (const [at, s] of junk) lines.splice(at % (lines.length + 1), 0, s);
        const r = analyzeText(lines.join('\n'));
        assert.ok(r.errors.length <= 50);
        for (const e of r.errors) if (e.location) assert.ok(Number.isInteger(e.location.line) && e.location.line >= 0, JSON.stringify(e.location));
        assert.ok(renderMermaid(r, 'node_0123abcd').split('\n').length <= MAX_DIAGRAM_LINES);
      },
    ),
    { numRuns: 300, seed: 15 },
  );
});
