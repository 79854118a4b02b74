/**
 * A real OpenLDAP server (Debian's `slapd`) for tests: a temp folder with a slapd.conf (core,
 * cosine, inetorgperson schemas; an mdb database for dc=example,dc=org), entries loaded with
 * slapadd, listening on 127.0.0.1 over ldap:// and, with a PKI, ldaps:// too. Undefined (with the
 * reason) when slapd is not installed.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, waitForPort } from '../service/git/fixtures.js'
import type { TestPki } from './test-pki.js'

export const SLAPD = '/usr/sbin/slapd'
export const ADMIN_DN = 'cn=admin,dc=example,dc=org'
export const ADMIN_PASSWORD = 'admin-secret'

export interface Slapd {
  url: string
  ldapsUrl?: string
  /** Applies an LDIF change (ldapmodify syntax) as the administrator. */
  modify(ldif: string): void
  close(): void
}

/** Why slapd cannot run here, or undefined when it can. */
export function slapdMissing(): string | undefined {
  if (!existsSync(SLAPD)) return 'slapd is not installed (apt-get install slapd ldap-utils)'
  if (!existsSync('/usr/bin/ldapmodify')) return 'ldapmodify is not installed (apt-get install ldap-utils)'
  return undefined
}

/** Starts slapd with `entries` (LDIF, below dc=example,dc=org, which is created). */
export async function startSlapd(entries: string, pki?: TestPki): Promise<Slapd> {
  const dir = mkdtempSync(join(tmpdir(), 'regent-slapd-'))
  mkdirSync(join(dir, 'db'))
  const tls = pki
    ? (() => {
        writeFileSync(join(dir, 'ca.pem'), pki.ca)
        writeFileSync(join(dir, 'server.pem'), pki.serverCert)
        writeFileSync(join(dir, 'server.key'), pki.serverKey)
        return `TLSCACertificateFile ${dir}/ca.pem\nTLSCertificateFile ${dir}/server.pem\nTLSCertificateKeyFile ${dir}/server.key\n`
      })()
    : ''
  const conf = join(dir, 'slapd.conf')
  writeFileSync(
    conf,
    [
      'include /etc/ldap/schema/core.schema',
      'include /etc/ldap/schema/cosine.schema',
      'include /etc/ldap/schema/inetorgperson.schema',
      'modulepath /usr/lib/ldap',
      'moduleload back_mdb',
      `pidfile ${dir}/slapd.pid`,
      tls,
      'database mdb',
      'maxsize 10485760',
      'suffix "dc=example,dc=org"',
      `rootdn "${ADMIN_DN}"`,
      `rootpw ${ADMIN_PASSWORD}`,
      `directory ${dir}/db`,
      'access to * by * read',
      '',
    ].join('\n'),
  )
  const base =
    'dn: dc=example,dc=org\nobjectClass: dcObject\nobjectClass: organization\no: Example\ndc: example\n\n'
  writeFileSync(join(dir, 'data.ldif'), base + entries)
  execFileSync('/usr/sbin/slapadd', ['-f', conf, '-l', join(dir, 'data.ldif')], { stdio: 'pipe' })
  const port = await freePort()
  const ldapsPort = pki ? await freePort() : undefined
  const urls = [`ldap://127.0.0.1:${port}/`, ...(ldapsPort ? [`ldaps://127.0.0.1:${ldapsPort}/`] : [])]
  const child: ChildProcess = spawn(SLAPD, ['-f', conf, '-h', urls.join(' '), '-d', '0'], { stdio: 'ignore' })
  const close = () => {
    if (child.exitCode === null) child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
  if (!(await waitForPort(port)) || (ldapsPort && !(await waitForPort(ldapsPort)))) {
    close()
    throw new Error('slapd did not start')
  }
  const url = `ldap://127.0.0.1:${port}`
  return {
    url,
    ...(ldapsPort ? { ldapsUrl: `ldaps://127.0.0.1:${ldapsPort}` } : {}),
    modify(ldif) {
      execFileSync('/usr/bin/ldapmodify', ['-x', '-H', url, '-D', ADMIN_DN, '-w', ADMIN_PASSWORD], {
        input: ldif,
        stdio: ['pipe', 'ignore', 'pipe'],
      })
    },
    close,
  }
}
