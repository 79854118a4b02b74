import { generateKeyPairSync, type KeyObject } from 'node:crypto'
import { CompactSign, compactVerify, exportJWK, importJWK, SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import { callWith, expectError, failure, json, testContext } from './helpers.js'

const HS_TOKEN =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIwIiwiaXNzIjoib3BhIn0.XmVoLoHI3pxMtMO_WRONMSJzGUDP9pDjy8Jp0_tdRXY'
const OCT = {
  kty: 'oct',
  k: 'AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow',
}

describe('io.jwt.decode', () => {
  it('splits header, payload and hex signature', () => {
    expect(json('io.jwt.decode', HS_TOKEN)).toBe(
      '[{"alg":"HS256","typ":"JWT"},{"iss":"opa","sub":"0"},"5e65682e81c8de9c4cb4c3bf59138d3122731940cff690e3cbc269d3fb5d4576"]',
    )
  })

  it('reports OPA errors for malformed tokens', () => {
    expectError('eval_builtin_error', 'encoded JWT had no period separators', 'io.jwt.decode', 'abc')
    expectError('eval_builtin_error', 'encoded JWT must have 3 sections, found 2', 'io.jwt.decode', 'a.b')
    expectError(
      'eval_builtin_error',
      'JWT header had invalid encoding: illegal base64 data at input byte 13',
      'io.jwt.decode',
      'eyJhbGciOiJIU^%zI1NiI+sInR5cCI6IkpXVCJ9.e30.AA',
    )
    const jwe = `${Buffer.from('{"alg":"HS256","enc":"x"}').toString('base64url')}.e30.AA`
    expectError('eval_builtin_error', 'JWT is a JWE object, which is not supported', 'io.jwt.decode', jwe)
  })
})

describe('signing and verification against jose', () => {
  const pairs: Array<[string, KeyObject, KeyObject]> = []
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const ed = generateKeyPairSync('ed25519')
  pairs.push(
    ['RS256', rsa.privateKey, rsa.publicKey],
    ['PS384', rsa.privateKey, rsa.publicKey],
    ['ES256', ec.privateKey, ec.publicKey],
    ['EdDSA', ed.privateKey, ed.publicKey],
  )

  for (const [alg, priv, pub] of pairs) {
    it(`${alg}: our tokens verify with jose, jose tokens verify with us`, async () => {
      const jwk = await exportJWK(priv)
      const ours = json('io.jwt.encode_sign', { alg, typ: 'JWT' }, { iss: 'regent', n: 1 }, jwk)
      const token = JSON.parse(ours) as string
      const { payload } = await compactVerify(token, pub)
      expect(new TextDecoder().decode(payload)).toBe('{"iss":"regent","n":1}')

      const theirs = await new SignJWT({ sub: 'x' }).setProtectedHeader({ alg }).sign(priv)
      const pem = pub.export({ type: 'spki', format: 'pem' }).toString()
      expect(json(`io.jwt.verify_${alg.toLowerCase()}`, theirs, pem)).toBe('true')
      expect(json(`io.jwt.verify_${alg.toLowerCase()}`, theirs, JSON.stringify(await exportJWK(pub)))).toBe(
        'true',
      )
      expect(json(`io.jwt.verify_${alg.toLowerCase()}`, `${theirs.slice(0, -4)}AAAA`, pem)).toBe('false')
    })
  }

  it('HS256 with a JWK secret matches RFC 7515 A.1', async () => {
    const token = JSON.parse(
      json(
        'io.jwt.encode_sign_raw',
        '{"typ":"JWT",\r\n "alg":"HS256"}',
        '{"iss":"joe",\r\n "exp":1300819380,\r\n "http://example.com/is_root":true}',
        JSON.stringify(OCT),
      ),
    )
    expect(token).toBe(
      'eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
    )
    const key = await importJWK(OCT, 'HS256')
    await expect(compactVerify(token, key)).resolves.toBeTruthy()
    const jws = await new CompactSign(new TextEncoder().encode('{"a":1}'))
      .setProtectedHeader({ alg: 'HS512' })
      .sign(new TextEncoder().encode('s3cret'))
    expect(json('io.jwt.verify_hs512', jws, 's3cret')).toBe('true')
    expect(json('io.jwt.verify_hs512', jws, 'wrong')).toBe('false')
  })

  it('encode_sign signs with the first key of a JWK set, as OPA reads its key argument', async () => {
    const first = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const second = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const set = { keys: [await exportJWK(first.privateKey), await exportJWK(second.privateKey)] }
    const token = JSON.parse(json('io.jwt.encode_sign', { alg: 'RS256' }, { sub: 'x' }, set)) as string
    await expect(compactVerify(token, first.publicKey)).resolves.toBeTruthy()
    // A set with no keys is read as a single JWK, which has no key type.
    expect(failure('io.jwt.encode_sign', { alg: 'HS256' }, {}, { keys: [] }).code).toBe('eval_builtin_error')
    expectError(
      'eval_builtin_error',
      '"keys" is not an array',
      'io.jwt.encode_sign',
      { alg: 'HS256' },
      {},
      { keys: 'k' },
    )
  })

  it('chooses keys from a JWK set as OPA does: a named kid alone, else keys whose alg fits', async () => {
    const a = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const b = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const pubA = await exportJWK(a.publicKey)
    const pubB = await exportJWK(b.publicKey)
    const sign = (header: Record<string, unknown>) =>
      JSON.parse(
        json('io.jwt.encode_sign', header, { sub: 'x' }, { keys: [a.privateKey.export({ format: 'jwk' })] }),
      ) as string
    const verdicts = (token: string, keys: Record<string, unknown>[]) => {
      const cert = JSON.stringify({ keys })
      const verified = JSON.parse(json('io.jwt.decode_verify', token, { cert, time: 0 })) as [boolean]
      return [json('io.jwt.verify_rs256', token, cert), verified[0]]
    }
    // A kid that names no key: every key is tried.
    expect(verdicts(sign({ alg: 'RS256', kid: 'zzz' }), [{ ...pubA, kid: 'a' }])).toEqual(['true', true])
    // A kid that names a key: that key's verdict is final, other keys are not tried.
    expect(verdicts(sign({ alg: 'RS256', kid: 'a' }), [{ ...pubB, kid: 'a' }, pubA])).toEqual([
      'false',
      false,
    ])
    // A key whose alg is not the header's is skipped.
    expect(verdicts(sign({ alg: 'RS256' }), [{ ...pubA, alg: 'RS384' }])).toEqual(['false', false])
    expect(verdicts(sign({ alg: 'RS256' }), [{ ...pubA, alg: 'RS256' }])).toEqual(['true', true])
    // A key whose alg is no JWS algorithm (an encryption key) is dropped.
    expect(verdicts(sign({ alg: 'RS256' }), [{ ...pubA, alg: 'RSA-OAEP' }])).toEqual(['false', false])
  })

  it('encode_sign_raw errors', () => {
    const key = JSON.stringify(OCT)
    expectError(
      'eval_builtin_error',
      "missing or invalid 'alg' header: cannot parse JSON: cannot parse empty string",
      'io.jwt.encode_sign_raw',
      '',
      '{}',
      key,
    )
    expectError(
      'eval_builtin_error',
      'jwsbb: header "alg" not found',
      'io.jwt.encode_sign_raw',
      '{}',
      '{}',
      key,
    )
    expectError(
      'eval_builtin_error',
      'type is JWT but payload is not JSON',
      'io.jwt.encode_sign_raw',
      '{"typ":"JWT","alg":"HS256"}',
      'e',
      key,
    )
  })
})

describe('io.jwt.decode_verify', () => {
  const sign = (payload: Record<string, unknown>) =>
    JSON.parse(
      json('io.jwt.encode_sign', { alg: 'HS256', typ: 'JWT' }, payload, {
        kty: 'oct',
        k: Buffer.from('secret').toString('base64url'),
      }),
    ) as string

  it('checks signature, exp/nbf at the query time (fractional seconds), iss and aud', () => {
    const ctx = testContext({ timeNs: 2_000_000_000_000n })
    const at = (payload: Record<string, unknown>, constraints: Record<string, unknown>) =>
      JSON.stringify(
        callWith(ctx, 'io.jwt.decode_verify', sign(payload), { secret: 'secret', ...constraints }),
        (_k, v) => (typeof v === 'bigint' ? Number(v) : v),
      )
    expect(at({ iss: 'x' }, {})).toContain('true')
    expect(at({ nbf: 1000.1 }, {})).toContain('true')
    expect(at({ nbf: 3000.1 }, {})).toContain('false')
    expect(at({ exp: 3000.2 }, {})).toContain('true')
    expect(at({ exp: 1999 }, {})).toContain('false')
    expect(at({ exp: 3000.2 }, { time: 4000000000000 })).toContain('false')
    expect(at({ iss: 'x' }, { iss: 'y' })).toContain('false')
    expect(at({ aud: ['a', 'b'] }, { aud: 'b' })).toContain('true')
    expect(at({ aud: 'a' }, {})).toContain('false')
    expect(at({}, { secret: 'other' })).toContain('false')
    expect(at({}, { alg: 'RS256' })).toContain('false')
    expect(() => callWith(ctx, 'io.jwt.decode_verify', sign({ exp: null }), { secret: 'secret' })).toThrow(
      'exp value must be a number',
    )
  })

  it('rejects unknown critical headers and tokens without alg', () => {
    const crit = `${Buffer.from('{"alg":"HS256","crit":["junk"]}').toString('base64url')}.e30.AA`
    expect(json('io.jwt.decode_verify', crit, { secret: 's' })).toBe('[false,{},{}]')
    expectError(
      'eval_builtin_error',
      'failed to parse a JWK key (set)',
      'io.jwt.verify_rs256',
      HS_TOKEN,
      '{"kty":',
    )
    expectError(
      'eval_builtin_error',
      'failed to parse a PEM certificate: x509: malformed certificate',
      'io.jwt.verify_rs256',
      HS_TOKEN,
      '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----',
    )
  })
})
