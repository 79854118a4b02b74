import { describe, expect, it } from 'vitest'
import { boundX, type ErrorCase, expectErrors, strictError, withInput } from './eval-errors.js'

const B = 'eval_builtin_error' as const
const T = 'eval_type_error' as const
const call = (query: string, message: string): ErrorCase => ({ query, code: B, message })

const H = 'eyJhbGciOiJIUzI1NiJ9' // {"alg":"HS256"}
const TOKEN = `${H}.e30.abc`
const KEY = '{\\"kty\\":\\"oct\\",\\"k\\":\\"AAAA\\"}'
const pem = (type: string, body = 'AAAA', after = '') =>
  `-----BEGIN ${type}-----\\nAAAA\\n-----END ${type}-----${after}`.replace('AAAA', body)

// OPA's v1/topdown/tokens.go: decodeJWT, decodeHeader/validateJWTHeader, extractJSONObject,
// getKeysFromCertOrJWK, builtinJWTVerify (shape, key, signature, header) and builtinJWTVerifyHS
// (shape, signature; the header is never read), commonBuiltinJWTEncodeSign.
describe('io.jwt.* errors', () => {
  it('words token, header, payload and key errors as OPA does', () => {
    expectErrors([
      call(
        'x := io.jwt.verify_rs256("abc", "k")',
        'io.jwt.verify_rs256: encoded JWT had no period separators',
      ),
      call(
        'x := io.jwt.verify_rs256("a.b", "k")',
        'io.jwt.verify_rs256: encoded JWT must have 3 sections, found 2',
      ),
      call(`x := io.jwt.verify_hs256("${H}.e30.a", "k")`, 'io.jwt.verify_hs256: illegal base64url string: a'),
      call(
        `x := io.jwt.decode("${H}.bm9wZQ.abc")`,
        `io.jwt.decode: invalid JSON: invalid character 'o' in literal null (expecting 'u')`,
      ),
      call(
        'x := io.jwt.decode("bm9wZQ.e30.abc")',
        `io.jwt.decode: bad JWT header: invalid JSON: invalid character 'o' in literal null (expecting 'u')`,
      ),
      call(
        'x := io.jwt.decode("WzFd.e30.abc")',
        'io.jwt.decode: bad JWT header: decoded JSON type was not an Object',
      ),
      call(
        `x := io.jwt.decode("${H}.a.abc")`,
        'io.jwt.decode: JWT payload had invalid encoding: illegal base64url string: a',
      ),
      call(
        `x := io.jwt.decode("${H}.e30.a")`,
        'io.jwt.decode: JWT signature had invalid encoding: illegal base64url string: a',
      ),
      call(
        `x := io.jwt.verify_rs256("${TOKEN}", "${pem('CERT')}")`,
        'io.jwt.verify_rs256: failed to extract a Key from the PEM certificate',
      ),
      call(
        `x := io.jwt.verify_rs256("${TOKEN}", "${pem('RSA PUBLIC KEY')}")`,
        'io.jwt.verify_rs256: failed to extract a Key from the PEM certificate',
      ),
      call(
        `x := io.jwt.verify_es256("${TOKEN}", "${pem('PUBLIC KEY', 'AAAA', '\\nmore')}")`,
        'io.jwt.verify_es256: extra data after a PEM certificate block',
      ),
      call(
        `x := io.jwt.verify_ps256("${TOKEN}", "${pem('CERTIFICATE')}")`,
        'io.jwt.verify_ps256: failed to parse a PEM certificate: x509: malformed certificate',
      ),
      withInput(
        'x := io.jwt.verify_rs256(input, "k")',
        '1',
        T,
        'io.jwt.verify_rs256: operand 1 must be string but got number',
      ),
    ])
  })

  it('reads the key before the signature and the header, and never the header for HMAC', () => {
    // The header is not base64url, yet the key's error comes first, as in OPA.
    expect(strictError('x := io.jwt.verify_rs256("!!!.e30.abc", "nope")').message).toMatch(
      /^io\.jwt\.verify_rs256: failed to parse a JWK key \(set\)/,
    )
    expect(boundX('x := io.jwt.verify_hs256("!!!.e30.e30", "k")')).toBe('false')
  })

  it('words encode_sign errors as OPA does and wants a JSON payload unless typ says otherwise', () => {
    expectErrors([
      call(
        `x := io.jwt.encode_sign({"alg": "XX256"}, {}, {"kty": "oct", "k": "AAAA"})`,
        'io.jwt.encode_sign: unknown JWS algorithm: XX256',
      ),
      call(
        `x := io.jwt.encode_sign({"alg": 1}, {}, {"kty": "oct", "k": "AAAA"})`,
        `io.jwt.encode_sign: missing or invalid 'alg' header: value doesn't contain string; it contains number`,
      ),
      call(
        `x := io.jwt.encode_sign_raw("{\\"alg\\":\\"HS256\\"}", "nope", "${KEY}")`,
        'io.jwt.encode_sign_raw: type is JWT but payload is not JSON',
      ),
      call(
        `x := io.jwt.encode_sign_raw("{\\"alg\\":\\"HS256\\",\\"typ\\":1}", "nope", "${KEY}")`,
        'io.jwt.encode_sign_raw: type is JWT but payload is not JSON',
      ),
    ])
    expect(
      boundX(`x := io.jwt.encode_sign_raw("{\\"alg\\":\\"HS256\\",\\"typ\\":\\"text\\"}", "nope", "${KEY}")`),
    ).toMatch(/^"eyJhbGciOiJIUzI1NiIsInR5cCI6InRleHQifQ\.bm9wZQ\./)
  })
})

// OPA's v1/topdown/crypto.go: getX509CertsFromString/getX509CertsFromPem, the CSR reading of
// builtinCryptoX509ParseCertificateRequest, builtinCryptoX509ParseKeyPair (which checks its key
// with operand position 1) and getPrivateKeysFromPEMData.
describe('crypto.x509.* and crypto.parse_private_keys errors', () => {
  it('words them as OPA does', () => {
    expectErrors([
      call(
        'x := crypto.x509.parse_certificates("nope")',
        'crypto.x509.parse_certificates: x509: malformed certificate',
      ),
      call(
        'x := crypto.x509.parse_certificates("%%%")',
        'crypto.x509.parse_certificates: illegal base64 data at input byte 0',
      ),
      call(
        `x := crypto.x509.parse_certificates("${pem('PUBLIC KEY')}")`,
        `crypto.x509.parse_certificates: PEM block type is 'PUBLIC KEY', expected CERTIFICATE`,
      ),
      call(
        `x := crypto.x509.parse_certificate_request("${pem('PUBLIC KEY')}")`,
        'crypto.x509.parse_certificate_request: illegal base64 data at input byte 0',
      ),
      call(
        // base64 of a PUBLIC KEY PEM block
        'x := crypto.x509.parse_certificate_request("LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0KQUFBQQotLS0tLUVORCBQVUJMSUMgS0VZLS0tLS0=")',
        'crypto.x509.parse_certificate_request: invalid PEM-encoded certificate signing request',
      ),
      call(
        'x := crypto.x509.parse_keypair("%%%", "a")',
        'crypto.x509.parse_keypair: illegal base64 data at input byte 0',
      ),
      call(
        'x := crypto.x509.parse_keypair("nope", "nope")',
        'crypto.x509.parse_keypair: x509: malformed certificate',
      ),
      withInput(
        'x := crypto.x509.parse_keypair("a", input)',
        '1',
        T,
        'crypto.x509.parse_keypair: operand 1 must be string but got number',
      ),
      withInput(
        'x := crypto.x509.parse_and_verify_certificates_with_options("a", input)',
        '1',
        T,
        'crypto.x509.parse_and_verify_certificates_with_options: operand 2 must be object but got number',
      ),
    ])
  })

  it('answers instead of failing where OPA does', () => {
    expect(boundX('x := crypto.x509.parse_and_verify_certificates("nope")')).toBe('[false,[]]')
    expect(boundX('x := crypto.x509.parse_and_verify_certificates_with_options("nope", {"bad": 1})')).toBe(
      '[false,[]]',
    )
    expect(boundX('x := crypto.parse_private_keys("")')).toBe('null')
    expect(boundX('x := crypto.parse_private_keys("nope")')).toBe('[]')
  })
})
