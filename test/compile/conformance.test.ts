/**
 * The compile conformance cases (`../shared/conformance/compile`, kind `http`) run through the real
 * routes, with the substituting stand-in for partial evaluation. Cases that need the real partial
 * evaluator (rule references, `data`, functions, mask evaluation) are listed as waiting for it; every
 * other case must pass, except the ones where regent deliberately differs (docs/compile.md).
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { compileRoutes } from '../../compile/route.js'
import type { CompileBackend } from '../../compile/types.js'
import { NeedsPartialEvaluation, substitutingBackend } from './substituting-backend.js'

const DIR = path.resolve(import.meta.dirname, '../../../shared/conformance/compile')

interface HttpCase {
  name: string
  file: string
  kind: string
  modules: Record<string, string>
  request: { method: string; path: string; headers: Record<string, string>; body: unknown }
  expected: {
    status?: number
    body?: unknown
    body_subset?: unknown
    body_text?: string
    content_type?: string
    ignore_keys?: string[]
  }
  sequence?: { id: string; step: number }
  equivalent_request?: HttpCase['request']
  rego_version?: number
}

/** Where regent answers differently on purpose; the reason is in docs/compile.md. */
const DELIBERATE: Record<string, string> = {
  'checks_comparison_reversed_10_unknown_operator_gt_sic.json':
    'flipped comparisons are mirrored (10 <= x is x gte 10), not negated as the reference does',
}

function loadCases(): HttpCase[] {
  return readdirSync(DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ ...(JSON.parse(readFileSync(path.join(DIR, file), 'utf8')) as HttpCase), file }))
    .filter((c) => c.kind === 'http' && c.expected.status !== undefined)
}

type Outcome =
  | { kind: 'needs-pe'; reason: string }
  | { kind: 'ran'; status: number; contentType: string; text: string }

async function run(c: HttpCase, backend: CompileBackend & { calls: unknown[] }): Promise<Outcome> {
  let needs: string | undefined
  const guarded: CompileBackend = {
    modules: () => backend.modules(),
    partialEvaluate: async (r) => {
      try {
        return await backend.partialEvaluate(r)
      } catch (err) {
        if (err instanceof NeedsPartialEvaluation) needs = err.message
        throw err
      }
    },
    evaluate: async (r) => {
      try {
        return await backend.evaluate(r)
      } catch (err) {
        if (err instanceof NeedsPartialEvaluation) needs = err.message
        throw err
      }
    },
    toAstJson: (r) => backend.toAstJson(r),
  }
  const { app } = compileRoutes({ backend: guarded })
  // Stale doc examples carry the modern form of their request.
  const request = c.equivalent_request ?? c.request
  const body = request.body === null || request.body === undefined ? undefined : JSON.stringify(request.body)
  const res = await app.request(request.path, { method: request.method, headers: request.headers, body })
  const text = await res.text()
  if (needs !== undefined) return { kind: 'needs-pe', reason: needs }
  return { kind: 'ran', status: res.status, contentType: res.headers.get('Content-Type') ?? '', text }
}

const cases = loadCases()
const waiting: string[] = []

describe('compile conformance (http cases)', () => {
  it('finds the cases', () => {
    expect(cases.length).toBeGreaterThan(50)
  })

  for (const c of cases) {
    it(c.file, async () => {
      const backend = substitutingBackend(c.modules, {}, c.rego_version === 0 ? 'v0' : 'v1')
      const outcome = await run(c, backend)
      if (outcome.kind === 'needs-pe') {
        waiting.push(`${c.file}: ${outcome.reason}`)
        return
      }
      const deliberate = DELIBERATE[c.file]
      const actual = JSON.parse(outcome.text) as Record<string, unknown>
      for (const key of c.expected.ignore_keys ?? []) delete actual[key]
      const matches =
        outcome.status === c.expected.status &&
        (c.expected.body === undefined ||
          JSON.stringify(sortKeys(actual)) === JSON.stringify(sortKeys(c.expected.body)))
      if (deliberate) {
        expect(matches, `${c.file} is expected to differ: ${deliberate}`).toBe(false)
        return
      }
      expect({ status: outcome.status, body: actual }).toEqual({
        status: c.expected.status,
        body: c.expected.body ?? expect.objectContaining(c.expected.body_subset as object),
      })
      if (c.expected.content_type) expect(outcome.contentType).toBe(c.expected.content_type)
      if (c.expected.body_text) expect(outcome.text).toBe(c.expected.body_text)
    })
  }

  it('reports the cases that wait for partial evaluation', () => {
    console.log(
      `compile conformance: ${waiting.length} http cases wait for partial evaluation:\n  ${waiting.join('\n  ')}`,
    )
  })
})

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys)
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, x]) => [k, sortKeys(x)]),
    )
  }
  return v
}
