import { describe, expect, it } from 'vitest'
import { answerCompile, type CompileRequest } from '../../../compile/answer.js'
import { EngineBackend } from '../../../compile/backend.js'
import { CompileService } from '../../../compile/compile.js'
import {
  LANE_MAX_BODY_CHARS,
  LANE_MAX_INFLATED_BYTES,
  MainThreadLane,
} from '../../../relay/compile/main-thread-lane.js'
import type { ServedState } from '../../../relay/compile/protocol.js'
import { ServedPolicies } from '../../../relay/compile/served-policies.js'
import { filtersBundle, SQL } from './compile-fixtures.js'

const OWNER =
  'include if { input.tickets.owner == input.user }\ninclude if { input.tickets.public == true; input.guest == false }'

async function served(rules: string, data: Record<string, unknown> = {}): Promise<ServedState> {
  const { bytes } = await filtersBundle(rules, 'r1', data)
  return { names: ['authz'], bytes: [bytes] }
}

function request(input: unknown, extra: Partial<CompileRequest> = {}): CompileRequest {
  return {
    path: 'filters/include',
    accept: SQL,
    contentType: 'application/json',
    bodyText: JSON.stringify({ input, unknowns: ['input.tickets'] }),
    metrics: false,
    pretty: false,
    ...extra,
  }
}

/** A worker's answer: the full engine over the same bundles, as compile-worker.ts runs it. */
async function workerFor(state: ServedState) {
  const policies = new ServedPolicies(new EngineBackend())
  await policies.load(state)
  const service = new CompileService(policies)
  return (r: CompileRequest) => answerCompile(service, r)
}

async function loadedLane(state: ServedState) {
  const lane = new MainThreadLane({ instructionLimit: 1_000_000, timeoutMs: 5_000 })
  await lane.load(state)
  return lane
}

describe('compile on the relay main thread', () => {
  it('answers templated requests once a worker agreed, with the worker’s answers', async () => {
    const state = await served(OWNER)
    const lane = await loadedLane(state)
    const worker = await workerFor(state)
    const inputs = [{ user: 'bob' }, { user: 'eve', guest: false }, { user: 'al', guest: true }, {}]
    let settled = 0
    for (const input of inputs) {
      const first = await lane.attempt(request(input))
      const trusted = await worker(request(input))
      expect(first?.answer, JSON.stringify(input)).toEqual(trusted)
      // Unconfirmed while it rests on a rule or failed step no earlier answer confirmed.
      if (first?.unconfirmed) {
        lane.settle(first, trusted)
        settled++
      }
    }
    expect(settled).toBeGreaterThanOrEqual(2)
    for (const input of [...inputs, { user: 'zed', guest: false }]) {
      const again = await lane.attempt(request(input))
      expect(again?.unconfirmed).toBeUndefined()
      expect(again?.answer).toEqual(await worker(request(input)))
    }
    expect(lane.stats()).toEqual({ loaded: true, answered: 5 + inputs.length - settled, rejected: 0 })
  })

  it('drops a template whose answer differs from the worker’s, for good', async () => {
    const lane = await loadedLane(await served(OWNER))
    const attempt = await lane.attempt(request({ user: 'bob' }))
    lane.settle(attempt!, { ...attempt!.answer, text: '{"result":{"query":"WHERE other"}}\n' })
    expect(lane.stats().rejected).toBe(1)
    expect(await lane.attempt(request({ user: 'bob' }))).toBeUndefined()
  })

  it('leaves a worker’s refusal unsettled: it says nothing about the template', async () => {
    const lane = await loadedLane(await served(OWNER))
    const attempt = await lane.attempt(request({ user: 'bob' }))
    lane.settle(attempt!, { status: 503, contentType: 'application/json', text: '{}' })
    expect(lane.stats().rejected).toBe(0)
    expect((await lane.attempt(request({ user: 'bob' })))?.unconfirmed).toBeDefined()
  })

  it('sends to the workers what needs the evaluator or could hold the thread', async () => {
    const cases: Array<[string, CompileRequest]> = [
      // No template: iteration, negation.
      ['include if { some t in input.tickets.list; t == input.user }', request({ user: 'bob' })],
      ['include if { not input.tickets.owner == input.user }', request({ user: 'bob' })],
      // A built-in whose cost is not linear in its input.
      [
        'include if { input.tickets.owner == input.user; regex.match(input.p, input.user) }',
        request({ user: 'b', p: 'b' }),
      ],
      // A mask rule needs the evaluator.
      [
        `${OWNER}\nmasks := {"tickets": {"owner": {"replace": {"value": "***"}}}}`,
        request(
          { user: 'bob' },
          {
            bodyText: JSON.stringify({
              input: { user: 'bob' },
              unknowns: ['input.tickets'],
              options: { maskRule: 'masks' },
            }),
          },
        ),
      ],
    ]
    for (const [rules, req] of cases) {
      const lane = await loadedLane(await served(rules))
      expect(await lane.attempt(req), rules).toBeUndefined()
    }
    const lane = await loadedLane(await served(OWNER))
    const big = request({ user: 'bob', pad: 'x'.repeat(LANE_MAX_BODY_CHARS) })
    expect(await lane.attempt(big)).toBeUndefined()
    expect(await lane.attempt(request({ user: 'bob' }, { metrics: true }))).toBeUndefined()
    // Errors are the workers' to answer, in their words.
    expect(await lane.attempt(request(undefined, { bodyText: '{"input": ' }))).toBeUndefined()
    expect(await lane.attempt(request({ user: 'bob' }, { path: 'filters/nope' }))).toBeUndefined()
  })

  it('holds no policies too large, or that do not compile, and answers nothing then', async () => {
    const large = await served(OWNER, { blob: 'y'.repeat(LANE_MAX_INFLATED_BYTES) })
    const broken = await served('include if x > 1')
    for (const state of [large, broken, { names: [], bytes: [] }]) {
      const lane = await loadedLane(state)
      expect(lane.stats().loaded).toBe(false)
      expect(await lane.attempt(request({ user: 'bob' }))).toBeUndefined()
    }
  })

  it('answers nothing while a new set loads, then from the newest set', async () => {
    const lane = await loadedLane(await served(OWNER))
    const loading = [
      lane.load(await served('include if input.tickets.tenant == input.user')),
      lane.load(await served('include if input.tickets.team == input.user')),
    ]
    expect(await lane.attempt(request({ user: 'bob' }))).toBeUndefined()
    await Promise.all(loading)
    const attempt = await lane.attempt(request({ user: 'bob' }))
    expect(attempt?.answer.text).toBe(`{"result":{"query":"WHERE tickets.team = E'bob'"}}\n`)
  })
})
