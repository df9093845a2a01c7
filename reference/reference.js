// The API reference page (/reference/): asks for a key once per browser tab (or takes the one the console keeps
// for the tab), reads /openapi.json with it and renders the document with Scalar's standalone bundle, served by
// this service like this file: the page fetches nothing from anywhere else (its Content-Security-Policy says so).

/** The console keeps its key under this name for the tab: one key serves both pages. */
const STORAGE_KEY = 'hds-console-key';

const keyPage = document.getElementById('key-page');
const form = document.getElementById('key-form');
const input = document.getElementById('api-key');
const error = document.getElementById('key-error');

/** What a refusal says, from its error envelope (detail, error_code, details) and Retry-After. */
async function refusalText(answer) {
  let envelope = null;
  try {
    envelope = await answer.json();
  } catch {
    // Not JSON: the status says enough.
  }
  const detail = envelope && typeof envelope.detail === 'string' ? envelope.detail : `HTTP ${answer.status}`;
  const code = envelope && typeof envelope.error_code === 'string' ? ` (${envelope.error_code})` : '';
  const wait = answer.headers.get('Retry-After');
  return `${detail}${code}${wait ? `: try again in ${wait} s` : ''}`;
}

function askForKey(message) {
  error.textContent = message;
  keyPage.hidden = false;
  input.focus();
}

async function openReference(key) {
  let answer;
  try {
    answer = await fetch('/openapi.json', { headers: { 'X-API-Key': key } });
  } catch (failure) {
    return askForKey(`The service cannot be reached: ${failure.message}`);
  }
  if (!answer.ok) {
    if (answer.status === 401) sessionStorage.removeItem(STORAGE_KEY);
    return askForKey(`The key was not accepted: ${await refusalText(answer)}`);
  }
  if (globalThis.Scalar === undefined) {
    // scalar.js answered 404: the viewer's package is not installed in this checkout.
    return askForKey('The reference viewer is not installed on the service: run npm install (@scalar/api-reference).');
  }
  const document_ = await answer.json();
  sessionStorage.setItem(STORAGE_KEY, key);
  keyPage.hidden = true;
  globalThis.Scalar.createApiReference('#reference', {
    content: document_,
    // Nothing leaves this origin: system fonts, no telemetry, no hosted assistant or MCP integration.
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    // The toolbar of Scalar's hosted services (share, deploy) has nothing to do with this service.
    showDeveloperTools: 'never',
    // "Try it" sends requests to the service that served the page, with the key entered.
    baseServerURL: location.origin,
    authentication: { preferredSecurityScheme: 'apiKey', securitySchemes: { apiKey: { value: key } } },
  });
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const key = input.value.trim();
  if (key !== '') void openReference(key);
});

const kept = sessionStorage.getItem(STORAGE_KEY);
if (kept) void openReference(kept);
else askForKey('');
