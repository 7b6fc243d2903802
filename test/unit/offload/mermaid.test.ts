import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MAX_DIAGRAM_LINES, renderMermaid, type LogAnalysis, type Phase } from '../../../src/core/offload';

async function parses(text: string): Promise<string | true> {
  const mermaid = (await import('mermaid')).default;
  try {
    await mermaid.parse(text);
    return true;
  } catch (err) {
    const msg = (err as Error).message;
    return /DOMPurify/.test(msg) ? true : msg; // no DOM in Node: the parse itself succeeded
  }
}

test('any error text gives a diagram Mermaid parses, within 15 lines', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.string({ maxLength: 200, unit: 'binary' }),
      fc.string({ maxLength: 30 }),
      fc.string({ maxLength: 80, unit: 'binary' }),
      fc.subarray(['compile', 'test', 'run'] as Phase[]),
      fc.dictionary(fc.string({ maxLength: 12 }), fc.nat(99), { maxKeys: 8 }),
      async (message, code, file, phases, codeCounts) => {
        const a: LogAnalysis = {
          lines: 1234,
          errors: [],
          errorCount: 3,
          warningCount: 1,
          tests: { failed: 1, passed: 2 },
          phases,
          runtime: 'unknown',
          primary: { code, kind: 'compile-error', message, runtime: 'unknown', phase: 'compile', logLine: 1, location: file ? { file, line: 3 } : undefined },
          codeCounts,
        };
        const d = renderMermaid(a, 'node_0badc0de');
        assert.ok(d.split('\n').length <= MAX_DIAGRAM_LINES);
        assert.equal(await parses(d), true, d);
      },
    ),
    { numRuns: 150, seed: 20261130 },
  );
});
