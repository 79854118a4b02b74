import { generateKeyPairSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { boundX, type ErrorCase, expectErrors, withInput } from './eval-errors.js'

const B = 'eval_builtin_error' as const
const T = 'eval_type_error' as const
const call = (query: string, message: string): ErrorCase => ({ query, code: B, message })

// OPA's v1/topdown/numbers.go, casts.go, semver.go: an error text that already names the
// built-in gets the name again from OPA's error wrapper (numbers.range_step).
describe('numbers, casts and semver errors', () => {
  it('words them as OPA does', () => {
    expectErrors([
      call(
        'x := numbers.range_step(1, 5, 0)',
        'numbers.range_step: numbers.range_step: step must be a positive integer',
      ),
      call(
        'x := numbers.range_step(1, 5, -1)',
        'numbers.range_step: numbers.range_step: step must be a positive integer',
      ),
      withInput(
        'x := numbers.range_step(input, 5, 0)',
        '1.5',
        T,
        'numbers.range_step: operand 1 must be integer number but got floating-point number',
      ),
      withInput(
        'x := numbers.range(1, input)',
        '2.5',
        T,
        'numbers.range: operand 2 must be integer number but got floating-point number',
      ),
      call('x := to_number("abc")', 'to_number: strconv.ParseFloat: parsing "abc": invalid syntax'),
      call('x := to_number("1e500")', 'to_number: strconv.ParseFloat: parsing "1e500": value out of range'),
      {
        query: 'x := to_number("-Inf")',
        code: T,
        message: 'to_number: operand 1 must be valid number string but got string',
      },
      call(
        'x := semver.compare("1", "1.0.0")',
        'semver.compare: operand 1: string "1" is not a valid SemVer',
      ),
      call(
        'x := semver.compare("1.0.0", "x")',
        'semver.compare: operand 2: string "x" is not a valid SemVer',
      ),
    ])
  })
})

// OPA's v1/topdown/jsonschema.go (astValueToJSONSchemaLoader) and json.go (builtinJSONPatch).
describe('json.* schema and patch errors', () => {
  it('words schema loading errors as OPA does, the document first', () => {
    expectErrors([
      withInput('x := json.match_schema({}, input)', '"{"', B, 'json.match_schema: invalid JSON string'),
      withInput(
        'x := json.match_schema(input, "{")',
        '1',
        B,
        'json.match_schema: wrong type, expected string or object',
      ),
    ])
    expect(boundX('x := json.verify_schema("{")')).toBe('[false,"jsonschema: invalid JSON string"]')
  })

  it('leaves json.patch undefined, without an error, when a patch cannot apply', () => {
    for (const patch of [
      '[{"op": "remove", "path": "/a"}]',
      '[{"op": "foo", "path": "/a"}]',
      '[{"op": "add", "path": "/a/b", "value": 1}]',
      '[1]',
    ]) {
      expect(boundX('x := json.patch({}, input)', patch), patch).toBeUndefined()
    }
  })
})

// OPA's v1/topdown/crypto.go getRSAPrivateKeyFromPEM.
describe('crypto.x509.parse_rsa_private_key errors', () => {
  it('words PEM block errors as OPA does', () => {
    expectErrors([
      call(
        'x := crypto.x509.parse_rsa_private_key("YWJj")',
        'crypto.x509.parse_rsa_private_key: failed to parse PEM block containing the key',
      ),
      call(
        'x := crypto.x509.parse_rsa_private_key("-----BEGIN CERTIFICATE-----\\nAAAA\\n-----END CERTIFICATE-----")',
        "crypto.x509.parse_rsa_private_key: PEM block type is 'CERTIFICATE', expected RSA PRIVATE KEY or PRIVATE KEY",
      ),
      call(
        'x := crypto.x509.parse_rsa_private_key("bad")',
        'crypto.x509.parse_rsa_private_key: illegal base64 data at input byte 0',
      ),
    ])
  })

  it("names the parser to use when the key's encoding is not the one its label says, as Go's x509", () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey
    const pkcs8 = rsa.export({ type: 'pkcs8', format: 'pem' }).toString()
    const pkcs1 = rsa.export({ type: 'pkcs1', format: 'pem' }).toString()
    const sec1 = ec.export({ type: 'sec1', format: 'pem' }).toString()
    const relabel = (pem: string, label: string) =>
      pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, (_, edge) => `-----${edge} ${label}-----`)
    const parse = (pem: string) => `x := crypto.x509.parse_rsa_private_key(${JSON.stringify(pem)})`
    const hint = (parser: string) =>
      `crypto.x509.parse_rsa_private_key: x509: failed to parse private key (use ${parser} instead for this key format)`
    expectErrors([
      call(parse(relabel(pkcs8, 'RSA PRIVATE KEY')), hint('ParsePKCS8PrivateKey')),
      call(parse(relabel(pkcs1, 'PRIVATE KEY')), hint('ParsePKCS1PrivateKey')),
      call(parse(relabel(sec1, 'RSA PRIVATE KEY')), hint('ParseECPrivateKey')),
      call(parse(relabel(sec1, 'PRIVATE KEY')), hint('ParseECPrivateKey')),
    ])
    // Labelled as what they are, both RSA encodings parse to the same key.
    const n = JSON.parse(boundX(parse(pkcs8)) ?? '{}').n
    expect(n).toBe(rsa.export({ format: 'jwk' }).n)
    expect(JSON.parse(boundX(parse(pkcs1)) ?? '{}').n).toBe(n)
  })
})

// OPA's v1/topdown/object.go.
describe('object.* errors', () => {
  it('words them as OPA does', () => {
    const subset = 'object.subset: both arguments object.subset must be of the same type or array and set'
    expectErrors([
      withInput('x := object.subset(input, {})', '1', T, subset),
      withInput('x := object.subset([1], input)', '{}', T, subset),
      // OPA merges back to front: the last element that is not an object is named.
      withInput(
        'x := object.union_n(input)',
        '[1, "a", {}]',
        T,
        'object.union_n: operand 1 must be array of objects but got array containing string',
      ),
      withInput(
        'x := object.remove({}, input)',
        '1',
        T,
        'object.remove: operand 2 must be one of {object, set, array} but got number',
      ),
    ])
  })
})

// OPA's numbers are their text (json.Number): an integer written with a fraction or an exponent
// prints as written; arithmetic results are canonical.
describe('numbers written with a fraction or an exponent', () => {
  it('print as written through evaluation, json.marshal and to_number', () => {
    expect(boundX('x := [101.00, 1e2, 1.0, 7]')).toBe('[101.00,1e2,1.0,7]')
    expect(boundX('x := json.marshal([101.00])')).toBe('"[101.00]"')
    expect(boundX('x := to_number("-42.0")')).toBe('-42.0')
    expect(boundX('x := 101.00 + 0')).toBe('101')
    expect(boundX('x := 101.00 == 101')).toBe('true')
  })
})
