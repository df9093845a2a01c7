import { readFileSync } from 'node:fs';
import { spawnSupervisor, serviceMemory, formatMemory } from './bench/bench-service.ts';
const dir = process.argv[2];
const env = { HOST: '127.0.0.1', PORT: '0', DATA_DIR: dir, LOG_LEVEL: 'silent', API_KEY_CLIENTS: JSON.stringify({ 'ingest-key': 'latency-client' }), RATE_LIMIT_PER_MINUTE: '1000000', SEARCH_RATE_LIMIT_PER_MINUTE: '1000000' };
const service = await spawnSupervisor(env, { onAbort: () => {} });
for (let i = 0; i < 40; i++) {
  const r = await fetch(`${service.url}/search`, { method: 'POST', headers: { 'x-api-key': 'ingest-key', 'content-type': 'application/json' }, body: JSON.stringify({ query: 'vitamin d', limit: 10 }) });
  if (r.status !== 200) { i--; await new Promise((r) => setTimeout(r, 200)); }
}
await new Promise((r) => setTimeout(r, 12000));
console.log(formatMemory(serviceMemory(service.pid)));
const pids = readFileSync(`/proc/${service.pid}/task/${service.pid}/children`, 'utf8').trim().split(/\s+/);
for (const pid of pids) {
  if (!readFileSync(`/proc/${pid}/environ`, 'utf8').includes('HDS_PROCESS_ROLE=api')) continue;
  const by = new Map<string, number>(); let name = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const m = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) { name = m[1] || '[anon]'; if (name.includes('/')) name = name.split('/').pop()!; continue; }
    const r = /^Rss:\s+(\d+)/.exec(line); if (r) by.set(name, (by.get(name) ?? 0) + Number(r[1]));
  }
  console.log(pid, [...by].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([k, v]) => `${k}:${(v / 1024).toFixed(0)}`).join(' '));
}
await service.stop();
