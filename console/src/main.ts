// The console's entry: connect with a key (checked against GET /discovery/readiness, which needs one), then the
// sections behind a tab bar: search, upload, documents, jobs, health, and the view of one document. Every request
// passes the one rate gate (budget.ts), whose waits are shown above the sections.

import { RateGate } from './budget.ts';
import { byId } from './dom.ts';
import { clearMessage, say, sayError } from './messages.ts';
import { maskedKey, remember, rememberedKey, sessionFor } from './session.ts';
import type { Session } from './session.ts';
import { searchView } from './search-view.ts';
import { uploadView } from './upload-view.ts';
import { documentsView } from './documents-view.ts';
import { documentView } from './document-view.ts';
import type { PageLabels } from './places.ts';
import { jobsView } from './jobs-view.ts';
import { healthView } from './health-view.ts';

const waitNotice = byId('wait');
const gate = new RateGate(({ seconds, code }) => {
  waitNotice.hidden = seconds === 0;
  waitNotice.textContent = code === 'rate_limited' ? `Waiting ${seconds} s for the rate limit; requests resume on their own.` : `The service asked to wait (${code}): trying again in ${seconds} s.`;
});

let current: Session | null = null;
const session = (): Session => {
  if (!current) throw new Error('Enter an API key first');
  return current;
};

const TABS = ['search', 'upload', 'documents', 'document', 'jobs', 'health'] as const;
type Tab = (typeof TABS)[number];
let previousTab: Tab = 'search';
let shown: Tab = 'search';

const jobsCount = byId('jobs-count');
const jobs = jobsView(session, (running) => {
  jobsCount.hidden = running === 0;
  jobsCount.textContent = String(running);
});
const document_ = documentView(session);
const openDocument = (documentId: string, labels?: PageLabels) => {
  show('document');
  void document_.open(documentId, labels);
};
const views = { search: searchView(session, openDocument), documents: documentsView(session, jobs, openDocument), health: healthView(session) };
uploadView(session, jobs, () => show('jobs'));

function show(tab: Tab): void {
  if (tab !== shown) {
    // What was said about one section does not stay under another.
    clearMessage();
    if (shown !== 'document') previousTab = shown;
  }
  shown = tab;
  for (const name of TABS) {
    byId(`tab-${name}`).hidden = name !== tab;
    const button = document.querySelector<HTMLButtonElement>(`#tabs button[data-tab="${name}"]`);
    if (!button) continue;
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
    views.documents.reset();
    document_.reset();
    jobs.reset();
    byId('api-key').focus();
  }
}

async function connect(key: string): Promise<void> {
  const candidate = sessionFor(key, gate);
  try {
    await candidate.read((client) => client.readiness());
  } catch (error) {
    sayError(error);
    return;
  }
  current = candidate;
  remember(key);
  connected(true);
  say('Connected.');
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
  connected(false);
  say('Disconnected.');
});
byId('document-back').addEventListener('click', () => show(previousTab));
for (const button of document.querySelectorAll<HTMLButtonElement>('#tabs button')) button.addEventListener('click', () => show(button.dataset.tab as Tab));

const stored = rememberedKey();
if (stored) void connect(stored);
