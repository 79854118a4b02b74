/**
 * A throwaway PKI made with openssl for TLS tests: a CA, a server certificate for 127.0.0.1
 * and a client certificate, all signed by the CA, in a temp folder removed by `cleanup`.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface TestPki {
  ca: string
  serverKey: string
  serverCert: string
  clientKey: string
  clientCert: string
  cleanup(): void
}

/** Generates the CA and both certificates (EC P-256, valid one day). */
export function createTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'regent-pki-'))
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' })
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes']
  ssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '1',
    '-subj',
    '/CN=regent-test-ca',
  )
  for (const name of ['server', 'client']) {
    ssl(
      'req',
      ...ec,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      `/CN=${name === 'server' ? '127.0.0.1' : 'regent-client'}`,
    )
    writeFileSync(
      join(dir, `${name}.ext`),
      name === 'server' ? 'subjectAltName=IP:127.0.0.1\n' : 'extendedKeyUsage=clientAuth\n',
    )
    ssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '1',
      '-extfile',
      `${name}.ext`,
    )
  }
  const read = (file: string) => readFileSync(join(dir, file), 'utf8')
  return {
    ca: read('ca.pem'),
    serverKey: read('server.key'),
    serverCert: read('server.pem'),
    clientKey: read('client.key'),
    clientCert: read('client.pem'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  }
}
