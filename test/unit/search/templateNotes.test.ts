// Template notes (vault/templateNotes.ts): an ADR tool's template is a form, not a decision. Recall keeps it
// findable but demotes it like a superseded note, and every output says what it is. Real SQLite, real recall().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isTemplateNote } from '../../../src/core/vault/templateNotes';
import { openProject } from '../../../src/core/project';
import { recall } from '../../../src/core/search/recall';
import { renderWire } from '../../../src/core/search/wire';
import { tempVault } from '../../helpers/tempVault';

test('the template names ADR tools ship count, decisions about templates do not', () => {
  for (const p of ['docs/adr/template.md', 'docs/decisions/adr-template.md', 'decisions/0000-ladr-template.md', 'adr/0000-TEMPLATE.md', 'madr/adr-template-minimal.md', 'Templates/Meeting.md', 'notes/_templates/daily.md', 'template.md']) {
    assert.ok(isTemplateNote(p), p);
  }
  for (const p of ['decisions/0010-django-templates.md', 'adr/0012-use-jinja-template.md', 'templates-decision.md', 'docs/templating/guide.md', 'adr/0003-template-engine.md']) {
    assert.ok(!isTemplateNote(p), p);
  }
});

test('a template that matches a query best ranks below a note with content, and says it is a template', async () => {
  const template = '# Title of the decision\n\n## Status\n\nProposed | Accepted\n\n## Decision\n\nWhat the decision is. Leave section titles without numbers.\n\n## Consequences\n\nWhat becomes easier or harder.\n';
  const v = tempVault({
    'adr/template.md': template,
    'adr/0002-headings.md': '# Do not number headings\n\n## Decision\n\nSection titles carry no digits; the ADR number is in the file name.\n',
  });
  const p = openProject({ vault: v.root });
  try {
    await p.scan();
    const r = await recall(p, 'section titles decision', { mode: 'bm25', limit: 5 });
    assert.deepEqual(r.hits.map((h) => h.path), ['adr/0002-headings.md', 'adr/template.md']);
    assert.equal(r.hits[1].template, true);
    assert.equal(r.hits[0].template, undefined);
    assert.match(renderWire(r.hits).split('\n')[1], /§ \[template\] /);
    // Asked for in its own words, the template is still found.
    const named = await recall(p, 'proposed accepted status', { mode: 'bm25', limit: 5 });
    assert.equal(named.hits[0]?.path, 'adr/template.md');
  } finally {
    p.close();
    v.cleanup();
  }
});
