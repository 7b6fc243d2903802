/**
 * The K0maru console page: one bundle for both hosts (the VS Code webview and `k0maru ui`). It builds the
 * cockpit shell (header, tabs, host-error banner), runs the ready → hello handshake, then hands each tab its
 * view. The DOM it renders is a contract (docs/console.md): tests and the VS Code runner query its test ids.
 */
import './console.css';
import { h, replace } from './dom';
import { ConsoleClient, createTransport } from './transport';
import { createSearchView } from './views/search';
import { createOffloadsView } from './views/offloads';
import { createScoreboardView } from './views/scoreboard';
import { createEmbeddingIndicator } from './views/embedProgress';

export interface View {
  element: HTMLElement;
  /** Called when the tab is shown, and when the host says something it shows changed. */
  refresh(reason: 'show' | 'vaultChanged' | 'ledgerChanged'): void;
}

type TabId = 'search' | 'offloads' | 'scoreboard';
const TABS: { id: TabId; label: string }[] = [
  { id: 'search', label: 'Search' },
  { id: 'offloads', label: 'Offloads' },
  { id: 'scoreboard', label: 'Scoreboard' },
];

function main(): void {
  const body = document.body;
  const app = document.getElementById('app') ?? body.appendChild(h('div', { id: 'app' }));
  const banner = h('div', { class: 'host-error', role: 'alert', testid: 'host-error', hidden: true });
  const showFailure = (message: string) => {
    banner.hidden = false;
    replace(banner, h('strong', {}, 'Console error: '), message);
  };
  const vaultName = h('span', { class: 'vault-name', testid: 'vault-name' }, 'connecting…');
  const tabBar = h('nav', { class: 'tabs', role: 'tablist' });
  const panels = h('main', { class: 'panels' });
  const header = h('header', { class: 'cockpit-header' }, h('span', { class: 'brand' }, 'K0maru'), vaultName);
  replace(app, header, banner, panels);

  let client: ConsoleClient;
  try {
    client = new ConsoleClient(createTransport(body), showFailure);
  } catch (e) {
    showFailure(e instanceof Error ? e.message : String(e));
    header.appendChild(tabBar);
    return;
  }
  const embedding = createEmbeddingIndicator(client);
  header.append(embedding.element, tabBar);

  const views: Record<TabId, View> = {
    // A hybrid search may start a background fill: the header asks how far it is.
    search: createSearchView(client, body.dataset.host === 'vscode', () => embedding.refresh()),
    offloads: createOffloadsView(client),
    scoreboard: createScoreboardView(client),
  };
  const buttons = new Map<TabId, HTMLButtonElement>();
  let active: TabId = 'search';
  const select = (id: TabId) => {
    active = id;
    for (const [tab, button] of buttons) {
      button.setAttribute('aria-selected', String(tab === id));
      views[tab].element.hidden = tab !== id;
    }
    views[id].refresh('show');
  };
  for (const tab of TABS) {
    const button = h('button', { type: 'button', role: 'tab', class: 'tab', testid: `tab-${tab.id}`, 'aria-selected': 'false' }, tab.label);
    button.addEventListener('click', () => select(tab.id));
    buttons.set(tab.id, button);
    tabBar.appendChild(button);
    views[tab.id].element.hidden = true;
    views[tab.id].element.setAttribute('role', 'tabpanel');
    panels.appendChild(views[tab.id].element);
  }

  // Pushed events: the visible view re-asks now; hidden views re-ask when shown (refresh('show')).
  client.onEvent((event) => {
    if (event !== 'embeddingChanged') views[active].refresh(event);
    // Changed notes are passages waiting for vectors.
    if (event !== 'ledgerChanged') embedding.refresh();
  });
  client.onHello((hello) => {
    vaultName.textContent = hello.vaultName;
    embedding.refresh();
  });

  client.hello().then(
    (hello) => {
      body.dataset.layout = hello.layout;
      body.dataset.ready = 'true';
      select('search');
    },
    (e: unknown) => showFailure(e instanceof Error ? e.message : String(e)),
  );
}

main();
