// Health (GET /health, no key) and the Client's Metadata Discovery readiness.

import { byId } from './dom.ts';
import { describeError } from './messages.ts';
import type { Session } from './session.ts';

export function healthView(session: () => Session): { refresh(): Promise<void> } {
  const healthBody = byId('health-body');
  const readinessBody = byId('readiness-body');
  async function refresh(): Promise<void> {
    try {
      const health = await session().client.health();
      healthBody.textContent = `HTTP ${health.status}\n${JSON.stringify(health.body, null, 2)}`;
    } catch (error) {
      healthBody.textContent = describeError(error);
    }
    try {
      readinessBody.textContent = JSON.stringify(await session().client.readiness(), null, 2);
    } catch (error) {
      readinessBody.textContent = describeError(error);
    }
  }
  byId('health-refresh').addEventListener('click', () => void refresh());
  return { refresh };
}
