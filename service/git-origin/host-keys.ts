/**
 * How an ssh remote's host key is checked: against the known_hosts lines configured for that host
 * (`service.git.known_hosts`), else against the key recorded in the store when the host was first
 * met, else trusted on this first use and recorded (settings `git.known_hosts/<host>:<port>`; the
 * first replica to record one wins). Never accepted silently: a changed key is refused by ssh.
 */
import type { ServiceRepositories } from '../../store/service/index.js'
import type { HostKeyVerification } from '../git/index.js'

/** The settings key a host's recorded known_hosts lines live under. */
export function knownHostsKey(host: string, port: number): string {
  return `git.known_hosts/${host}:${port}`
}

/** The configured lines whose host field names this host (`host` on port 22, `[host]:port`). */
export function configuredLinesFor(lines: readonly string[], host: string, port: number): string[] {
  const name = port === 22 ? host : `[${host}]:${port}`
  return lines.filter((line) => {
    const hosts = line.trim().split(/\s+/)[0] ?? ''
    return hosts.split(',').some((h) => h === name || (port === 22 && h === `[${host}]:22`))
  })
}

export async function hostKeyVerification(
  store: ServiceRepositories,
  configured: readonly string[],
  host: string,
  port: number,
): Promise<HostKeyVerification> {
  const pinned = configuredLinesFor(configured, host, port)
  if (pinned.length > 0) return { knownHosts: `${pinned.join('\n')}\n` }
  const key = knownHostsKey(host, port)
  const recorded = await store.settings.get(key)
  if (recorded !== undefined) return { knownHosts: recorded }
  return { trustOnFirstUse: async (lines) => void (await store.settings.getOrInit(key, lines)) }
}
