/**
 * Property test of configuration loading: generated YAML documents (well-formed or not, with the
 * relay's and the service's keys holding values of every type, `${VAR}` references, anchors) either
 * load or fail with a ConfigError that says what is wrong; no other exception escapes. Run counts are
 * bounded.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import { ConfigError, parseConfig } from '../../core/config.js'
import { relayConfigSchema } from '../../relay/config.js'
import { serviceSectionSchema } from '../../service/config.js'

const scalar = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, 1e300, '', 'x', '${HOME}', '${NOPE}', '127.0.0.1:0', '10s'),
  fc.string({ maxLength: 12 }),
  fc.integer(),
)
const value = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(
      fc.constantFrom('url', 'token', 'bundles', 'services', 'resource', 'polling', 'relay', 'x', 'keys'),
      tie('v'),
      { maxKeys: 3 },
    ),
  ),
})).v

const RELAY_KEYS = ['services', 'bundles', 'discovery', 'keys', 'labels', 'relay', 'decision_logs', 'status']
const SERVICE_KEYS = ['listen', 'database', 'storage', 'bundles', 'signing', 'decisions', 'admin_token', 'x']

const document = (keys: string[]) =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 4 }).map((d) => stringify(d)),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
    { weight: 1, arbitrary: fc.constantFrom('a: &x [*x]', 'a: [', ': :', '- 1\n- 2', 'a: 1\na: 2', '\t- x') },
  )

describe('configuration under generated documents', () => {
  for (const [name, schema, keys] of [
    ['relay', relayConfigSchema, RELAY_KEYS],
    ['service section', serviceSectionSchema, SERVICE_KEYS],
  ] as const) {
    it(`loads a ${name} config or fails with a ConfigError`, () => {
      let failures = 0
      fc.assert(
        fc.property(document(keys), (text) => {
          try {
            parseConfig(text, schema, { env: { HOME: '/home/x' } })
          } catch (err) {
            expect(err, text).toBeInstanceOf(ConfigError)
            expect((err as ConfigError).problems.length, text).toBeGreaterThan(0)
            failures++
          }
        }),
        { numRuns: 500, seed: 20261122 },
      )
      expect(failures).toBeGreaterThan(0)
    })
  }
})
