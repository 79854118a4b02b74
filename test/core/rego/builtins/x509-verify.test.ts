import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, expectError, json } from './helpers.js'

// A root CA and a leaf that may only be used for client authentication, made with openssl.
describe('chain verification options and extended key usages', () => {
  let dir = ''
  let chain = ''
  let leaf = ''
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' })

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-x509-verify-'))
    openssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'root.key',
      '-out',
      'root.pem',
      '-days',
      '30',
      '-subj',
      '/CN=Verify Root CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    )
    openssl(
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'leaf.key',
      '-out',
      'leaf.csr',
      '-subj',
      '/CN=client.example.com',
    )
    writeFileSync(
      join(dir, 'ext.cnf'),
      'extendedKeyUsage=clientAuth\nsubjectAltName=DNS:client.example.com\n',
    )
    openssl(
      'x509',
      '-req',
      '-in',
      'leaf.csr',
      '-CA',
      'root.pem',
      '-CAkey',
      'root.key',
      '-CAcreateserial',
      '-out',
      'leaf.pem',
      '-days',
      '10',
      '-extfile',
      'ext.cnf',
    )
    leaf = readFileSync(join(dir, 'leaf.pem'), 'utf8')
    chain = readFileSync(join(dir, 'root.pem'), 'utf8') + leaf
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  const verifyWith = (options: unknown) =>
    (call('crypto.x509.parse_and_verify_certificates_with_options', chain, options) as [boolean, unknown])[0]

  it('asks for server authentication unless told otherwise, as Go does', () => {
    expect(json('crypto.x509.parse_and_verify_certificates', chain)).toBe('[false,[]]')
    expect(verifyWith({})).toBe(false)
    expect(verifyWith({ KeyUsages: ['KeyUsageClientAuth'] })).toBe(true)
    expect(verifyWith({ KeyUsages: ['KeyUsageCodeSigning'] })).toBe(false)
    expect(verifyWith({ KeyUsages: ['KeyUsageCodeSigning', 'KeyUsageClientAuth'] })).toBe(true)
    expect(verifyWith({ KeyUsages: ['KeyUsageAny'] })).toBe(true)
  })

  it('checks at CurrentTime given in nanoseconds', () => {
    const ns = (ms: number) => BigInt(ms) * 1_000_000n
    expect(verifyWith({ KeyUsages: ['KeyUsageAny'], CurrentTime: ns(Date.now()) })).toBe(true)
    expect(verifyWith({ KeyUsages: ['KeyUsageAny'], CurrentTime: ns(Date.now() - 2 * 86400_000) })).toBe(
      false,
    )
    expect(verifyWith({ KeyUsages: ['KeyUsageAny'], CurrentTime: ns(Date.now() + 20 * 86400_000) })).toBe(
      false,
    )
  })

  it('rejects malformed options with OPA messages', () => {
    const fails = (options: unknown, message: string) =>
      expectError(
        'eval_builtin_error',
        message,
        'crypto.x509.parse_and_verify_certificates_with_options',
        chain,
        options,
      )
    fails({ DNSName: 1 }, "'DNSName' should be a string")
    fails({ CurrentTime: 'now' }, "'CurrentTime' should be a number")
    fails({ MaxConstraintComparisons: 'x' }, "'MaxConstraintComparisons' should be a number")
    fails({ KeyUsages: 'true' }, "'KeyUsages' should be an Array or Set")
    fails({ Other: 'x' }, 'invalid key option')
    fails({ KeyUsages: ['1', 'KeyUsageAny', 'Bad', 2] }, "invalid entries for 'KeyUsages' found: [1 Bad]")
    expect(verifyWith({ MaxConstraintComparisons: 5, KeyUsages: ['KeyUsageAny', 1] })).toBe(true)
  })

  it('reports extended key usages and the key algorithm as Go numbers', () => {
    const [cert] = JSON.parse(json('crypto.x509.parse_certificates', leaf))
    expect(cert.ExtKeyUsage).toEqual([2])
    expect(cert.UnknownExtKeyUsage).toBeNull()
    expect(cert.PublicKeyAlgorithm).toBe(3)
  })
})
