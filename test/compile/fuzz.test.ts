/**
 * Property test of the compile routes: generated requests (well-formed and not) against a policy
 * that cannot fail at evaluation time. Whatever arrives, the answer is 200 with a result or an OPA
 * error envelope with a 4xx status: a 500 here would be a crash in regent's own code. Run counts
 * are bounded.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileRoutes } from '../../compile/route.js'
import { createApp } from '../../core/http/index.js'
import { createLogger } from '../../core/log.js'
import { engineBackend } from './engine-backend.js'

const POLICY = {
  'filters.rego': `package filters

# METADATA
# compile:
#   unknowns: [input.fruits]
#   mask_rule: data.filters.masks
include if input.fruits.colour == input.fav
include if {
  startswith(input.fruits.name, "app")
  input.fruits.price < 10
  not input.fruits.rotten
}
include if input.fruits.id in input.allowed

masks.fruits.price.replace.value := 0 if input.fav != "green"
`,
}

const ACCEPTS = [
  'application/json',
  'application/vnd.opa.ucast.all+json',
  'application/vnd.opa.ucast.minimal+json',
  'application/vnd.opa.ucast.prisma+json',
  'application/vnd.opa.ucast.linq+json',
  'application/vnd.opa.sql.postgresql+json',
  'application/vnd.opa.sql.mysql+json',
  'application/vnd.opa.sql.sqlserver+json',
  'application/vnd.opa.sql.sqlite+json',
  'application/vnd.styra.multitarget+json',
  'application/vnd.opa.multitarget+json',
  'text/html',
  'application/json, application/vnd.opa.sql.sqlite+json',
  '',
]
const PATHS = [
  '/v1/compile/filters/include',
  '/v1/compile',
  '/v1/compile/filters/nothing',
  '/v1/compile/%2e%2e',
]
const REFS = [
  'input',
  'input.fruits',
  'input.fruits.colour',
  'data.x',
  'input[0]',
  'fruits',
  '',
  '1 +',
  'input.',
]

const json = fc.jsonValue({ maxDepth: 3 })
/** Mostly `good`, sometimes anything at all. */
const usually = <T>(good: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: good, weight: 4 }, { arbitrary: json as fc.Arbitrary<unknown>, weight: 1 })
const body = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record(
        {
          input: usually(
            fc.record({
              fav: fc.constantFrom('green', 'red', 1, null),
              allowed: fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 3 })), { maxLength: 3 }),
            }),
          ),
          unknowns: usually(
            fc.oneof(
              { weight: 3, arbitrary: fc.constant(['input.fruits']) },
              { weight: 1, arbitrary: fc.array(fc.constantFrom(...REFS), { maxLength: 3 }) },
            ),
          ),
          query: usually(fc.constantFrom('data.filters.include', 'data.filters.include == true', '1 +')),
          options: usually(
            fc.record(
              {
                targetDialects: usually(
                  fc.array(fc.constantFrom('ucast+prisma', 'sql+postgresql', 'sql+sqlite', 'nope', 'sql+'), {
                    maxLength: 3,
                  }),
                ),
                maskRule: usually(fc.constantFrom('masks', 'data.filters.masks', 'x y')),
                disableInlining: usually(fc.array(fc.constantFrom(...REFS), { maxLength: 2 })),
                targetSQLTableMappings: usually(
                  fc.constant({ postgresql: { fruits: { $self: 'f', colour: 'c' } } }),
                ),
              },
              { requiredKeys: [] },
            ),
          ),
        },
        { requiredKeys: [] },
      )
      .map((b) => JSON.stringify(b)),
  },
  { weight: 1, arbitrary: json.map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
)

describe('compile routes under generated requests', () => {
  it('answer 200 or a 4xx envelope, never a 500', async () => {
    // Mounted as the relay and `regent run -s` mount them, behind the shared middleware.
    const app = createApp({ errorStyle: 'opa', logger: createLogger({ level: 'silent' }) })
    app.route('/', compileRoutes({ backend: engineBackend(POLICY) }).app)
    const statuses = new Map<number, number>()
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PATHS),
        fc.constantFrom(...ACCEPTS),
        fc.constantFrom('application/json', 'application/yaml', 'text/plain', ''),
        body,
        async (path, accept, contentType, text) => {
          const headers: Record<string, string> = {}
          if (accept) headers.Accept = accept
          if (contentType) headers['Content-Type'] = contentType
          const res = await app.request(path, { method: 'POST', headers, body: text })
          const answer = await res.text()
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
          expect(res.status, `${path} ${accept} ${text}: ${answer}`).not.toBeGreaterThanOrEqual(500)
          const parsed = JSON.parse(answer) as Record<string, unknown>
          if (res.status === 200) expect(parsed).not.toHaveProperty('code')
          else expect(typeof parsed.code).toBe('string')
        },
      ),
      { numRuns: 1000, seed: 20261122 },
    )
    // The generator reaches the compiler, not only the request checks.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(50)
    expect(statuses.get(400) ?? 0).toBeGreaterThan(50)
  })
})
