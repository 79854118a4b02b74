/**
 * The evaluation pool on real worker threads: a query past its deadline is a 400 naming the config
 * key, a full queue is 503 with Retry-After, and the main thread stays free while a worker runs.
 */
import { Writable } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { HttpError } from '../../../core/http/index.js'
import { createLogger } from '../../../core/log.js'
import { evaluationConfigSchema } from '../../../service/evaluation/config.js'
import type { EvaluationTask } from '../../../service/evaluation/evaluate-request.js'
import { EvaluationPool } from '../../../service/evaluation/evaluation-pool.js'

const quiet = createLogger({
  level: 'error',
  destination: new Writable({ write: (_c, _e, done) => done() }),
  pretty: false,
})

/** A sandbox task running `rego` (a query) over nothing stored. */
function task(rego: string, instructionLimit = 0): EvaluationTask {
  return {
    modules: {},
    dataText: '{}',
    query: { kind: 'rego', text: rego },
    mocks: { builtins: [] },
    strict: false,
    sandbox: true,
    replay: false,
    allowNet: [],
    allowFiles: [],
    instructionLimit,
  }
}

// Long enough to outlast the small deadlines below, without allocating much.
const SLOW = 'x := count({y | some y in numbers.range(1, 3000000); y % 7 == 0})'

async function refusal(promise: Promise<unknown>): Promise<HttpError> {
  try {
    await promise
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError)
    return err as HttpError
  }
  throw new Error('expected the evaluation to be refused')
}

describe('EvaluationPool', () => {
  let pool: EvaluationPool | undefined
  afterEach(async () => pool?.close())

  it('answers on a worker, and stops a query at the deadline with a 400 naming the key', async () => {
    pool = new EvaluationPool(evaluationConfigSchema.parse({ timeout_ms: 300, instruction_limit: 0 }), quiet)
    // The worker starts with the first request, inside its deadline: on a loaded machine the
    // first few may time out before the worker is up.
    let answer: Awaited<ReturnType<EvaluationPool['run']>> | undefined
    for (let attempt = 0; attempt < 10 && !answer; attempt++)
      answer = await pool.run(task('x := 1 + 1')).catch(() => undefined)
    expect(JSON.parse(answer!.resultText)[0].bindings).toEqual({ x: 2 })
    const err = await refusal(pool.run(task(SLOW)))
    expect(err.status).toBe(400)
    expect(err.code).toBe('eval_cancel_error')
    // Whether the evaluator or the pool stopped it, the answer names the key of the limit.
    expect(err.message).toMatch(/service\.evaluation\.timeout_ms/)
  })

  it('refuses with 503 and Retry-After when every worker is busy and the queue is full', async () => {
    pool = new EvaluationPool(evaluationConfigSchema.parse({ workers: 1, queue: 0, timeout_ms: 2000 }), quiet)
    await pool.run(task('true')) // the worker is up
    const busy = pool.run(task(SLOW, 0)).catch((err: unknown) => err)
    const err = await refusal(pool.run(task('true')))
    expect(err.status).toBe(503)
    expect(err.headers).toEqual({ 'Retry-After': '1' })
    expect(err.message).toMatch(/service\.evaluation\.queue/)
    await busy
  })
})
