/**
 * The messages between a TaskPool (task-pool.ts) and its workers (task-worker.ts). A worker runs
 * one task at a time; `state` (e.g. the policies to evaluate against) is sent before any task that
 * must see it, and a worker handles messages strictly in order, so a task never sees older state.
 */

/** From the pool to a worker. */
export type ToWorker<State, Task> =
  | { kind: 'state'; generation: number; state: State }
  | { kind: 'task'; id: number; deadline: number; task: Task }

/** From a worker to the pool. */
export type FromWorker<Applied, Result> =
  | { kind: 'state-applied'; generation: number; applied: Applied }
  | { kind: 'result'; id: number; result: Result }
  | { kind: 'failed'; id: number; message: string }
