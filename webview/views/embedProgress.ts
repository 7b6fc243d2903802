/**
 * The header's embedding progress: "embedding 3,100 / 12,601" while the host fills vectors in the background, so
 * a person knows why hybrid answers are partial and how far the fill is. The host pushes `embeddingChanged` as
 * the fill moves on; the figures themselves come from the `status` request (one answer in flight at a time).
 */
import type { EmbeddingProgress } from '../../src/shared/protocol';
import { formatInt, h, replace } from '../dom';
import type { ConsoleClient } from '../transport';

export interface EmbeddingIndicator {
  element: HTMLElement;
  /** Asks the host again (after a hello, an event, a search). */
  refresh(): void;
}

export function createEmbeddingIndicator(client: ConsoleClient): EmbeddingIndicator {
  const element = h('span', { class: 'embed-progress', testid: 'embed-progress', 'data-state': 'none', 'aria-live': 'polite', hidden: true });
  let asking = false;
  let askAgain = false;
  const refresh = () => {
    if (asking) {
      askAgain = true;
      return;
    }
    asking = true;
    client.request('status', {}).then(
      (status) => render(element, status.embedding),
      // A host that cannot say (no vault yet) has nothing to show; its requests say why where the person looks.
      () => render(element, undefined),
    ).finally(() => {
      asking = false;
      if (askAgain) {
        askAgain = false;
        refresh();
      }
    });
  };
  return { element, refresh };
}

function render(element: HTMLElement, e: EmbeddingProgress | undefined): void {
  const complete = !e || e.embedded >= e.passages;
  const state = !e ? 'none' : complete ? 'complete' : e.filling ? 'filling' : 'partial';
  element.dataset.state = state;
  element.hidden = complete;
  if (!e || complete) {
    replace(element);
    return;
  }
  element.dataset.embedded = String(e.embedded);
  element.dataset.passages = String(e.passages);
  // Not filling while incomplete: the model is not loaded, or the fill stopped (the next hybrid search resumes it).
  const verb = e.filling ? 'embedding' : 'vectors';
  element.title = e.filling
    ? 'Passages get their vectors in the background; hybrid answers cover the embedded part until then.'
    : 'Not every passage has a vector; the next hybrid search resumes the fill.';
  replace(element, `${verb} ${formatInt(e.embedded)} / ${formatInt(e.passages)}`);
}
