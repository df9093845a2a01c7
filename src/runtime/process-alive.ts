// Whether a process id names a running process: files that caches mark with their writer's pid (partial
// files, build locks) are left alone while it runs and taken over or removed once it has died.

export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
