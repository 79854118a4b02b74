/**
 * Language behaviour as data: every `test/cases/<area>/<topic>.yaml` holds cases in OPA's schema
 * (`note`, `modules`, `data`, `input`, `query`, `want_result`, `want_error_code`, `want_error`),
 * run through the same runner as OPA's compliance cases.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { type ConformanceCase, runCase } from '../conformance/runner.js'

const root = new URL('.', import.meta.url).pathname

for (const area of readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory())) {
  for (const file of readdirSync(join(root, area.name)).filter((f) => f.endsWith('.yaml'))) {
    const doc = parse(readFileSync(join(root, area.name, file), 'utf8')) as { cases: ConformanceCase[] }
    describe(`${area.name}/${file}`, () => {
      for (const tc of doc.cases) {
        it(tc.note, async () => {
          const outcome = await runCase(area.name, tc)
          expect(outcome.reason ?? '').toBe('')
          expect(outcome.passed).toBe(true)
        })
      }
    })
  }
}
