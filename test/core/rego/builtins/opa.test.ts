import { describe, expect, it } from 'vitest'
import { fromJS, toJSONText } from '../../../../core/rego/values/index.js'
import { callWith, testContext } from './helpers.js'

describe('opa.runtime', () => {
  const runtimeWith = (config: unknown) =>
    callWith(testContext({ runtime: fromJS({ version: 'v', config }) }), 'opa.runtime')

  it('leaves service credentials and key material out of the configuration, as OPA does', () => {
    const out = runtimeWith({
      labels: { app: 'x' },
      services: { acme: { url: 'https://acme.example', credentials: { bearer: { token: 's3cret' } } } },
      keys: { k1: { algorithm: 'RS256', key: 'PEM', private_key: 'PRIVATE' } },
    })
    expect(toJSONText(out as never)).toBe(
      '{"config":{"keys":{"k1":{"algorithm":"RS256"}},"labels":{"app":"x"},"services":{"acme":{"url":"https://acme.example"}}},"version":"v"}',
    )
  })

  it('masks services given as a list too, and refuses other shapes', () => {
    const out = runtimeWith({ services: [{ name: 'a', credentials: {} }] })
    expect(toJSONText(out as never)).toBe('{"config":{"services":[{"name":"a"}]},"version":"v"}')
    expect(() => runtimeWith({ services: 'nope' })).toThrow('illegal service config type')
  })
})
