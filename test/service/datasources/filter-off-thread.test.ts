import { isLosslessNumber, type LosslessNumber } from 'lossless-json'
import { describe, expect, it } from 'vitest'
import { applyFilter } from '../../../service/datasources/filter-off-thread.js'
import { parseJsonDocument } from '../../../service/json-document.js'

/** `count` users, every third an admin, with a number no double holds unless `exact` is false. */
function users(count: number, exact = true): unknown {
  const list = Array.from({ length: count }, (_, i) => ({
    name: `user-${i}`,
    admin: i % 3 === 0,
    groups: ['staff', `team-${i % 17}`],
    attributes: { level: i % 5, note: 'x'.repeat(i % 40) },
  }))
  const text = JSON.stringify(list)
  return parseJsonDocument(exact ? text.replace('"level":0', '"level":12345678901234567890123') : text)
}

const admins = {
  policy_filter:
    'package filter\n\nadmins contains {"name": u.name, "attributes": u.attributes} if {\n\tsome u in input\n\tu.admin\n}\n',
  policy_query: 'data.filter.admins',
}
const conflict = {
  policy_filter: 'package filter\n\nx := 1 if input[0]\n\nx := 2 if input[1]\n',
  policy_query: 'data.filter.x',
}
const undefinedQuery = { policy_filter: 'package filter\n\nx if false\n', policy_query: 'data.filter.x' }

/** The outcome of a filter run: its output, or its error message. */
const outcome = (run: Promise<unknown>): Promise<{ output?: unknown; error?: string }> =>
  run.then(
    (output) => ({ output }),
    (err: Error) => ({ error: `${err.constructor.name}: ${err.message}` }),
  )

const endless = {
  policy_filter:
    'package filter\n\npairs := count([1 | some a in numbers.range(1, 100000); some b in numbers.range(1, 100000)])\n',
  policy_query: 'data.filter.pairs',
}

describe('applyFilter', () => {
  it('stops a filter that would run for ages: by work on the main thread, by the run timeout on a worker', async () => {
    const inPlace = await outcome(applyFilter(endless, [], 2, { timeoutMs: 60_000 }))
    expect(inPlace.error).toMatch(/^RunError: filter error: .*eval_instruction_limit_error/)
    const onWorker = await outcome(applyFilter(endless, [], 2, { timeoutMs: 300, offThreadBytes: 1 }))
    expect(onWorker.error).toMatch(/^RunError: filter error: .*eval_cancel_error/)
  })

  it('leaves content without a filter alone', async () => {
    expect(await applyFilter({}, [1], 3)).toBeUndefined()
  })

  it('gives the same text and items in place and on a worker, exact numbers kept', async () => {
    const content = users(300)
    const inPlace = await applyFilter(admins, content, 10)
    const onWorker = await applyFilter(admins, content, 10, { offThreadBytes: 1 })
    expect(onWorker).toEqual(inPlace)
    expect(inPlace?.items).toBe(100)
    const stored = parseJsonDocument(inPlace!.text) as Array<{ attributes: { level: unknown } }>
    const big = stored.map((u) => u.attributes.level).find(isLosslessNumber) as LosslessNumber
    expect(big.value).toBe('12345678901234567890123')
    // A decimal of 16 significant digits also keeps them all.
    const decimal = parseJsonDocument('[{"name":"d","admin":true,"attributes":{"level":12345678.12345678}}]')
    const kept = await applyFilter(admins, decimal, 10, { offThreadBytes: 1 })
    expect(kept?.text).toContain('12345678.12345678')
    expect(kept).toEqual(await applyFilter(admins, decimal, 10))
    // Without such a number the worker parses its input natively: still the same output.
    const plain = users(300, false)
    expect(await applyFilter(admins, plain, 10, { offThreadBytes: 1 })).toEqual(
      await applyFilter(admins, plain, 10),
    )
  })

  it('fails with the same messages (file:line) in place and on a worker', async () => {
    for (const config of [conflict, undefinedQuery]) {
      const inPlace = await outcome(applyFilter(config, [true, true], 10))
      const onWorker = await outcome(applyFilter(config, [true, true], 10, { offThreadBytes: 1 }))
      expect(inPlace.error).toMatch(/^RunError: filter error: /)
      expect(onWorker).toEqual(inPlace)
    }
    const failed = await outcome(applyFilter(conflict, [true, true], 10, { offThreadBytes: 1 }))
    expect(failed.error).toMatch(/policy_filter\.rego:5:1: eval_conflict_error/)
  })

  it('stops a filter whose run is stopped', async () => {
    const stop = new AbortController()
    const run = outcome(applyFilter(admins, users(20_000), 10, { offThreadBytes: 1, signal: stop.signal }))
    setTimeout(() => stop.abort(), 50)
    expect((await run).error).toBe('RunError: filter error: the filter was stopped')
  })

  it('keeps the event loop ticking while a large filter runs on a worker', async () => {
    const content = users(60_000, false)
    // Starts (and, from source, bundles) the worker once, as a running service already has.
    await applyFilter(admins, [], 10, { offThreadBytes: 1 })
    const inPlace = await maxGapDuring(() => applyFilter(admins, content, 10))
    const onWorker = await maxGapDuring(() => applyFilter(admins, content, 10, { offThreadBytes: 1 }))
    expect(onWorker.result).toEqual(inPlace.result)
    // In place, the evaluation holds the loop for most of its run; on a worker only slices of
    // writing the input's text do.
    expect(inPlace.maxGapMs).toBeGreaterThan(200)
    expect(onWorker.maxGapMs).toBeLessThan(inPlace.maxGapMs / 4)
  }, 30_000)
})

/** The longest the event loop went without a timer tick while `work` ran. */
async function maxGapDuring<T>(work: () => Promise<T>): Promise<{ result: T; maxGapMs: number }> {
  let last = performance.now()
  let maxGapMs = 0
  const ticker = setInterval(() => {
    const now = performance.now()
    maxGapMs = Math.max(maxGapMs, now - last)
    last = now
  }, 2)
  try {
    const result = await work()
    maxGapMs = Math.max(maxGapMs, performance.now() - last)
    return { result, maxGapMs }
  } finally {
    clearInterval(ticker)
  }
}
