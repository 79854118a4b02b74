/**
 * The compile conformance ratchet: the cases of `../shared/conformance/compile` run against a live
 * endpoint over the real engine (conformance/runner.ts); at least the recorded number must pass (raise
 * threshold.json as regent improves, never lower it), and no case may fail that is not listed here.
 */
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { runAll, summarize } from './conformance/runner.js'

const folder = path.resolve(import.meta.dirname, '../../../shared/conformance/compile')
const threshold = JSON.parse(readFileSync(new URL('./threshold.json', import.meta.url), 'utf8')) as {
  passed: number
}
const present = existsSync(folder)
if (!present) console.warn(`compile conformance: ${folder} not found; skipping the ratchet`)

describe.skipIf(!present)('compile conformance cases', () => {
  it(`pass at least ${threshold.passed} cases, and none fails`, { timeout: 60_000 }, async () => {
    const outcomes = await runAll(folder)
    const passed = outcomes.filter((o) => o.status === 'passed').length
    const failed = outcomes.filter((o) => o.status === 'failed')
    console.log(summarize(outcomes))
    expect(failed.map((o) => `${o.file}: ${o.reason}`)).toEqual([])
    expect(passed).toBeGreaterThanOrEqual(threshold.passed)
  })
})
