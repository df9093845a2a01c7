// Health (GET /health, no key) and the Client's Metadata Discovery readiness, each as a table of its fields with
// the overall state as a badge.

import { byId } from './dom.ts';
import { errorBlock } from './messages.ts';
import { metadataRows } from './metadata-table.ts';
import type { Session } from './session.ts';

export function healthView(session: () => Session): { refresh(): Promise<void> } {
  const healthStatus = byId('health-status');
  const healthRows = byId<HTMLTableElement>('health-table').tBodies[0];
  const readinessStatus = byId('readiness-status');
  const readinessRows = byId<HTMLTableElement>('readiness-table').tBodies[0];

  function badge(element: HTMLElement, text: string, state: string): void {
    element.textContent = text;
    element.dataset.state = state;
  }

  async function refresh(): Promise<void> {
    try {
      const health = await session().read((client) => client.health());
      const overall = String((health.body as { status?: unknown }).status ?? health.status);
      badge(healthStatus, `HTTP ${health.status} ${overall}`, health.status === 200 && overall !== 'degraded' ? 'completed' : health.status === 200 ? 'retrying' : 'failed');
      healthRows.replaceChildren(...metadataRows(health.body));
    } catch (error) {
      badge(healthStatus, 'unreachable', 'failed');
      healthRows.replaceChildren(errorBlock(error));
    }
    try {
      const readiness = await session().read((client) => client.readiness());
      badge(readinessStatus, readiness.readiness_state, readiness.readiness_state === 'ready' ? 'completed' : 'retrying');
      readinessRows.replaceChildren(...metadataRows(readiness));
    } catch (error) {
      badge(readinessStatus, 'unavailable', 'failed');
      readinessRows.replaceChildren(errorBlock(error));
    }
  }
  byId('health-refresh').addEventListener('click', () => void refresh());
  return { refresh };
}
