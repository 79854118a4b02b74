/**
 * Property test of the service's API over real HTTP on SQLite: generated requests (every route's
 * method, odd ids, well-formed and malformed bodies, some without a token) are answered with 2xx, 3xx
 * or a 4xx management envelope, never a 5xx; afterwards the service still stores and answers a
 * well-formed request. Run counts are bounded.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../store/backends.js'
import { startTestService, type TestService } from './harness.js'

const ROUTES: Array<[string, string]> = [
  ['GET', '/v1/systems'],
  ['POST', '/v1/systems'],
  ['GET', '/v1/systems/{id}'],
  ['PUT', '/v1/systems/{id}'],
  ['DELETE', '/v1/systems/{id}'],
  ['GET', '/v1/systems/{id}/discovery'],
  ['GET', '/v1/systems/{id}/assets/{id}'],
  ['GET', '/v1/bundles/systems/{id}'],
  ['GET', '/v1/systems/{id}/bundles'],
  ['GET', '/v1/systems/{id}/bundles/{id}/{id}/details'],
  ['GET', '/v1/systems/{id}/bundles/{id}/{id}/bundle'],
  ['GET', '/v1/systems/{id}/bundle-deploy'],
  ['PUT', '/v1/systems/{id}/bundle-deploy'],
  ['GET', '/v1/tokens'],
  ['GET', '/v1/tokens/{id}'],
  ['PUT', '/v1/tokens/{id}'],
  ['DELETE', '/v1/tokens/{id}'],
  ['GET', '/v1/policies'],
  ['GET', '/v1/policies/{id}'],
  ['PUT', '/v1/policies/{id}'],
  ['DELETE', '/v1/policies/{id}'],
  ['GET', '/v1/data/{id}'],
  ['PUT', '/v1/data/{id}'],
  ['PATCH', '/v1/data/{id}'],
  ['DELETE', '/v1/data/{id}'],
  ['GET', '/v1/decisions'],
  ['POST', '/v1/decisions'],
  ['GET', '/v1/decisions/{id}'],
  ['POST', '/v1/logs'],
  ['POST', '/v1/status'],
  ['GET', '/v1/status'],
]
const IDS = ['a', 'sys-1', 'x/y', '%2F', '..', '%00', 'ü', 'a'.repeat(300), '', 'systems/a/b', '%']

const json = fc.jsonValue({ maxDepth: 3 })
const bodyArb = fc.oneof(
  json.map((v) => ({ body: v })),
  fc.string({ maxLength: 30 }).map((raw) => ({ raw })),
  fc
    .record(
      {
        name: json,
        description: json,
        type: fc.oneof(fc.constantFrom('custom', 'kubernetes', 'nope'), json),
        ttl: fc.oneof(fc.constantFrom('1h', '720h', '-1h', 'forever'), json),
        allow_path_patterns: fc.oneof(fc.array(fc.constantFrom('/v1/*', '[', '**')), json),
        source_control: json,
        bundle_registry: fc.oneof(
          json,
          fc.record(
            { distribution_s3: json, max_bundles: json, manual_deployment: json },
            { requiredKeys: [] },
          ),
        ),
        primary: json,
        force: json,
      },
      { requiredKeys: [] },
    )
    .map((v) => ({ body: v })),
  fc.array(fc.record({ decision_id: json, timestamp: json, labels: json }), { maxLength: 3 }).map((v) => ({
    body: v,
  })),
)

const SQLITE = BACKENDS.find((b) => b.name === 'sqlite')

describe.skipIf(!SQLITE?.available)('service API under generated requests', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService(SQLITE!)
  })
  afterAll(async () => t?.close())

  it('answers 2xx, 3xx or a 4xx envelope, never a 5xx, and goes on working', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ROUTES),
        fc.constantFrom(...IDS),
        bodyArb,
        fc.constantFrom<string | null | undefined>(undefined, undefined, undefined, null, 'wrong'),
        fc.constantFrom('application/json', 'application/yaml', 'text/plain'),
        async ([method, template], id, payload, token, contentType) => {
          const path = template.replaceAll('{id}', id)
          const withBody = method !== 'GET' && method !== 'DELETE'
          const res = await t.call(method, path, {
            token,
            headers: { 'Content-Type': contentType },
            ...(withBody ? payload : {}),
          })
          const text = await res.text()
          expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(500)
          if (res.status >= 400) expect(JSON.parse(text), `${method} ${path}`).toHaveProperty('code')
        },
      ),
      { numRuns: 500, seed: 20261122 },
    )
    const raw = '{"n": 12345678901234567890}'
    const put = await t.call('PUT', '/v1/data/after', {
      raw,
      headers: { 'Content-Type': 'application/json' },
    })
    expect(put.status).toBeLessThan(300)
    const after = await t.call('GET', '/v1/data/after')
    expect(after.status).toBe(200)
    expect(await after.text()).toContain('12345678901234567890')
  })
})
