/** A task worker for task-pool.test.ts: each task kind misbehaves in one way. */
import { serveTasks } from '../../../core/workers/task-worker.js'

export type FixtureTask =
  | { kind: 'state' }
  | { kind: 'spin' }
  | { kind: 'spin-until-deadline' }
  | { kind: 'allocate' }
  | { kind: 'throw' }
  | { kind: 'wait'; ms: number }

let state = 'none'

serveTasks<string, string, FixtureTask, string>({
  state: (next) => {
    state = next
    return `applied ${next}`
  },
  task: async (task, deadline) => {
    switch (task.kind) {
      case 'state':
        return state
      case 'spin':
        // Ignores its deadline, as a single long built-in call would.
        for (;;) {}
      case 'spin-until-deadline':
        while (Date.now() <= deadline) {}
        return 'stopped at the deadline'
      case 'allocate': {
        const hold: number[][] = []
        for (;;) hold.push(new Array(1_000_000).fill(hold.length))
      }
      case 'throw':
        throw new Error('the task failed')
      case 'wait':
        await new Promise((done) => setTimeout(done, task.ms))
        return 'waited'
    }
  },
})
