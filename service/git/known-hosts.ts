/**
 * Explicit ssh host-key checking. The known_hosts file ssh reads is built per command from what
 * the caller configured: known_hosts lines or bare public keys, fingerprints checked against what
 * the host presents (`ssh-keyscan`, then pinned), or trust on first use, whose learnt key is handed
 * back through a callback for the caller to persist. With none of these the connection is refused
 * before ssh runs; `StrictHostKeyChecking=no` is never used.
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { GitError } from './errors.js'
import type { PrivateDir } from './private-dir.js'
import type { HostKeyVerification } from './types.js'

export interface KnownHostsSetup {
  file: string
  strict: 'yes' | 'accept-new'
  /** After a successful command: hands newly learnt keys to the trust-on-first-use callback. */
  recordLearnt(): Promise<void>
}

const KEY_TYPE = /^(ssh-|ecdsa-|sk-)/

/** How ssh names a host in known_hosts: `host` on port 22, `[host]:port` otherwise. */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`
}

/** `SHA256:…` as `ssh-keygen -lf` prints it, from a key's base64 blob. */
export function fingerprintOf(base64Key: string): string {
  return `SHA256:${createHash('sha256').update(Buffer.from(base64Key, 'base64')).digest('base64').replace(/=+$/, '')}`
}

function normaliseLines(text: string, hostName: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => (KEY_TYPE.test(line) ? `${hostName} ${line}` : line))
}

export async function setUpKnownHosts(
  dir: PrivateDir,
  verification: HostKeyVerification,
  host: string,
  port: number,
  timeoutMs: number,
): Promise<KnownHostsSetup> {
  const hostName = knownHostsName(host, port)
  const lines = normaliseLines(verification.knownHosts ?? '', hostName)
  if (verification.fingerprints && verification.fingerprints.length > 0) {
    lines.push(...(await keysMatchingFingerprints(host, port, verification.fingerprints, timeoutMs)))
  }
  const tofu = verification.trustOnFirstUse
  if (lines.length === 0 && tofu === undefined) {
    throw new GitError(
      'host_key_rejected',
      `no host key configured for ${hostName}: give its known_hosts line, its fingerprint, or enable trust on first use`,
      'ssh_credentials',
    )
  }
  const file = await dir.writeSecret('known_hosts', lines.length > 0 ? `${lines.join('\n')}\n` : '')
  const before = new Set(lines)
  return {
    file,
    strict: tofu === undefined ? 'yes' : 'accept-new',
    async recordLearnt() {
      if (tofu === undefined) return
      const learnt = normaliseLines(await readFile(file, 'utf8'), hostName).filter(
        (line) => !before.has(line),
      )
      if (learnt.length > 0) await tofu(`${learnt.join('\n')}\n`)
    },
  }
}

/** Asks the host for its keys and keeps those whose fingerprint is configured. */
async function keysMatchingFingerprints(
  host: string,
  port: number,
  fingerprints: string[],
  timeoutMs: number,
): Promise<string[]> {
  const wanted = new Set(fingerprints.map((f) => f.trim().replace(/=+$/, '')))
  const scanned = await new Promise<string>((resolve) => {
    const seconds = String(Math.max(1, Math.ceil(timeoutMs / 1000)))
    const child = spawn('ssh-keyscan', ['-T', seconds, '-p', String(port), '--', host], {
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    let out = ''
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.stdout.on('data', (chunk: Buffer) => {
      out = (out + chunk.toString('utf8')).slice(0, 65_536)
    })
    child.on('error', () => resolve(''))
    child.on('close', () => {
      clearTimeout(timer)
      resolve(out)
    })
  })
  const matching = normaliseLines(scanned, knownHostsName(host, port)).filter((line) => {
    const key = line.split(/\s+/)[2]
    return key !== undefined && wanted.has(fingerprintOf(key))
  })
  if (matching.length === 0) {
    throw new GitError(
      'host_key_rejected',
      `the host key of ${knownHostsName(host, port)} matches none of the configured fingerprints (or the host did not answer)`,
      'ssh_credentials',
    )
  }
  return matching
}
