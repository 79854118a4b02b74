/**
 * The compliance ratchet: OPA's compliance cases must pass at least as often as recorded in
 * threshold.json (raise it as the engine improves, never lower it).
 */
import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { DEFAULT_FOLDER, runAll, summarize } from './runner.js'

const folder = process.env.REGENT_CONFORMANCE_DIR ?? DEFAULT_FOLDER
const threshold = JSON.parse(readFileSync(new URL('./threshold.json', import.meta.url), 'utf8')) as {
  passed: number
}
const present = existsSync(folder)
if (!present) console.warn(`conformance: ${folder} not found; skipping the compliance ratchet`)

describe.skipIf(!present)('OPA compliance cases', () => {
  it(`pass at least ${threshold.passed} cases`, { timeout: 120_000 }, async () => {
    const outcomes = await runAll(folder)
    const passed = outcomes.filter((o) => o.passed).length
    if (passed < threshold.passed) console.log(summarize(outcomes))
    expect(passed).toBeGreaterThanOrEqual(threshold.passed)
  })
})
