// The console's entry: connect with a key (checked against GET /discovery/readiness, which needs one), then four
// sections behind a tab bar: search, upload, documents, health.

import { byId } from './dom.ts';
import { say, sayError } from './messages.ts';
import { maskedKey, remember, rememberedKey, sessionFor } from './session.ts';
import type { Session } from './session.ts';
import { searchView } from './search-view.ts';
import { uploadView } from './upload-view.ts';
import { documentsView } from './documents-view.ts';
import { healthView } from './health-view.ts';

let current: Session | null = null;
const session = (): Session => {
  if (!current) throw new Error('Enter an API key first');
  return current;
};

const views = { search: searchView(session), upload: uploadView(session), documents: documentsView(session), health: healthView(session) };
const TABS = ['search', 'upload', 'documents', 'health'] as const;
type Tab = (typeof TABS)[number];

function show(tab: Tab): void {
  for (const name of TABS) {
    byId(`tab-${name}`).hidden = name !== tab;
    const button = document.querySelector<HTMLButtonElement>(`#tabs button[data-tab="${name}"]`)!;
    if (name === tab) button.setAttribute('aria-current', 'page');
    else button.removeAttribute('aria-current');
  }
  if (tab === 'documents') void views.documents.refresh();
  if (tab === 'health') void views.health.refresh();
}

function connected(on: boolean): void {
  byId('key-form').hidden = on;
  byId('connected').hidden = !on;
  byId('tabs').hidden = !on;
  if (on) {
    byId('connected-as').textContent = `key ${maskedKey(current!.key)}`;
    show('search');
    byId('search-query').focus();
  } else {
    for (const name of TABS) byId(`tab-${name}`).hidden = true;
    views.search.reset();
    views.upload.reset();
    views.documents.reset();
    byId('api-key').focus();
  }
}

async function connect(key: string): Promise<void> {
  const candidate = sessionFor(key);
  try {
    await candidate.client.readiness();
  } catch (error) {
    sayError(error);
    return;
  }
  current = candidate;
  remember(key);
  say('Connected.');
  connected(true);
}

byId<HTMLFormElement>('key-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = byId<HTMLInputElement>('api-key');
  void connect(input.value.trim());
  input.value = '';
});
byId('disconnect').addEventListener('click', () => {
  current = null;
  remember(null);
  say('Disconnected.');
  connected(false);
});
for (const button of document.querySelectorAll<HTMLButtonElement>('#tabs button')) button.addEventListener('click', () => show(button.dataset.tab as Tab));

const stored = rememberedKey();
if (stored) void connect(stored);
