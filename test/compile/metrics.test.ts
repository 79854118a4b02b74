import { describe, expect, it } from 'vitest'
import { compileRoutes } from '../../compile/route.js'
import { engineBackend } from './engine-backend.js'

// Unknowns and mask rule both come from the annotation, so every stage of a compile request runs.
const POLICY = {
  'filters.rego': `# METADATA
# scope: package
# compile:
#   unknowns: [input.rows]
#   mask_rule: masks
package filters

include if input.rows.owner == input.user

masks.rows.secret.replace.value := "***"
`,
}

async function metricsOf(app: ReturnType<typeof compileRoutes>['app']): Promise<Record<string, number>> {
  const res = await app.request('/v1/compile/filters/include?metrics=true', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/vnd.opa.sql.postgresql+json' },
    body: JSON.stringify({ input: { user: 'u' } }),
  })
  expect(res.status).toBe(200)
  return ((await res.json()) as { metrics: Record<string, number> }).metrics
}

describe('compile metrics', () => {
  it("report OPA's set of timers, each non-zero, and no annotation extraction once it is cached", async () => {
    const { app } = compileRoutes({ backend: engineBackend(POLICY) })
    const first = await metricsOf(app)
    expect(Object.keys(first).sort()).toEqual(
      [
        'timer_compile_eval_constraints_ns',
        'timer_compile_eval_mask_rule_ns',
        'timer_compile_extract_annotations_mask_ns',
        'timer_compile_extract_annotations_unknowns_ns',
        'timer_compile_prep_partial_ns',
        'timer_compile_translate_queries_ns',
        'timer_rego_external_resolve_ns',
        'timer_rego_partial_eval_ns',
        'timer_rego_query_compile_ns',
        'timer_rego_query_parse_ns',
        'timer_server_handler_ns',
      ].sort(),
    )
    for (const value of Object.values(first)) expect(value).toBeGreaterThan(0)
    const second = await metricsOf(app)
    expect(second).not.toHaveProperty('timer_compile_extract_annotations_unknowns_ns')
    expect(second).not.toHaveProperty('timer_compile_extract_annotations_mask_ns')
  })
})
