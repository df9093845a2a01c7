// Named points in the service where a test can hold it (a job between stages, a lifecycle request between
// versions, an api process before it builds its snapshots) to act there: kill a process, change the authority
// mode, read RECOVERING. Nothing in src/ registers a behaviour, so in production each point is a no-op; only a
// test preload does (test/helpers/faults.ts, given with --import by test/helpers/server.ts), so no setting of
// the service can turn a pause on.

/** The points: where each is awaited is named at its call site. */
export const FAULT_POINTS = ['job-stage', 'lifecycle-step', 'recovery'] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

type Behaviour = () => Promise<void>;

const behaviours = new Map<FaultPoint, Behaviour>();

/** For a test preload only: what `faultPoint(point)` awaits from now on in this process. */
export function onFaultPoint(point: FaultPoint, behaviour: Behaviour): void {
  behaviours.set(point, behaviour);
}

/** Resolves at once unless a test preload registered a behaviour for the point. */
export async function faultPoint(point: FaultPoint): Promise<void> {
  const behaviour = behaviours.get(point);
  if (behaviour) await behaviour();
}
