import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { KeyFileError, readKeyFile, readKeyOrSecret } from '../../core/key-files.js'

const dir = mkdtempSync(join(tmpdir(), 'regent-key-files-'))
const pem = join(dir, 'key.pem')
writeFileSync(pem, '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n')

describe('readKeyFile', () => {
  it('reads a file and names the flag or key when it cannot', () => {
    expect(readKeyFile(pem, 'x')).toContain('BEGIN PUBLIC KEY')
    expect(() => readKeyFile(join(dir, 'nope.pem'), 'relay.agent_auth.cert')).toThrow(
      new KeyFileError(`relay.agent_auth.cert: no such file: ${join(dir, 'nope.pem')}`),
    )
    expect(() => readKeyFile(dir, '--signing-key')).toThrow(`--signing-key: not a file: ${dir}`)
  })
})

describe('readKeyOrSecret', () => {
  it('reads files, keeps inline PEM and HMAC secrets', () => {
    expect(readKeyOrSecret(pem, '--verification-key', 'RS256')).toContain('BEGIN PUBLIC KEY')
    const inline = '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----'
    expect(readKeyOrSecret(inline, '--verification-key', 'ES256')).toBe(inline)
    expect(readKeyOrSecret('s3cret', '--signing-key', 'HS256')).toBe('s3cret')
  })

  it('calls a mistyped path "no such file", not a key that does not decode', () => {
    for (const alg of ['RS256', 'PS384', 'ES512'])
      expect(() => readKeyOrSecret('./nope.pem', '--signing-key', alg)).toThrow(
        '--signing-key: no such file: ./nope.pem',
      )
    // An HMAC secret can be any text, but not one that only a path looks like.
    for (const path of ['./nope.pem', '/etc/regent/hmac.key', 'keys/secret.pem'])
      expect(() => readKeyOrSecret(path, '--signing-key', 'HS256')).toThrow(`no such file: ${path}`)
  })
})
