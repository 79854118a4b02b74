/**
 * Parses and checks the URL of a remote before git sees it. Only the transports users have are
 * accepted (git itself would also run `ext::` commands or read `fd::`), URLs never carry
 * credentials (they would land on command lines and in error text), and nothing can be taken by
 * git for an option.
 */
import { isAbsolute } from 'node:path'
import { invalidInput } from './errors.js'

export type Transport = 'file' | 'git' | 'http' | 'ssh'

export interface RemoteUrl {
  transport: Transport
  /** What git is given. */
  url: string
  /** For ssh: the host and port the host key belongs to. */
  host?: string
  port?: number
}

// user@host:path, as scp writes it. The host part has no slash, so `./a:b` stays a local path.
const SCP_LIKE = /^(?:([^@/\s]+)@)?(\[[^\]]+\]|[^:/\s]+):(?!\/\/)(.+)$/

export function parseRemoteUrl(raw: string): RemoteUrl {
  const fail = (why: string) => invalidInput('url', `url ${JSON.stringify(redactUrl(raw))}: ${why}`)
  if (typeof raw !== 'string' || raw.trim() === '') throw fail('is empty')
  if (/[\u0000-\u001f\u007f]/.test(raw) || raw.startsWith('-')) throw fail('has characters git would misread')
  if (isAbsolute(raw)) return { transport: 'file', url: raw }
  // git's `<transport>::<address>` form runs helpers such as `ext::` (an arbitrary command).
  if (/^[a-z0-9+.-]+::/i.test(raw))
    throw fail('names a remote helper (transport::address), which is not supported')
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1]?.toLowerCase()
  if (scheme === undefined) {
    const scp = SCP_LIKE.exec(raw)
    if (scp) {
      // git also reads `[host:port]:path`, the one scp-like way to name a port.
      const bracketed = /^\[([^:\]]+):(\d+)\]$/.exec(scp[2]!)
      if (bracketed) return { transport: 'ssh', url: raw, host: bracketed[1]!, port: Number(bracketed[2]) }
      return { transport: 'ssh', url: raw, host: scp[2]!.replace(/^\[|\]$/g, ''), port: 22 }
    }
    throw fail(
      'is neither a URL (https://, ssh://, git://, file://), an scp-like user@host:path nor an absolute path',
    )
  }
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    throw fail('is malformed')
  }
  switch (scheme) {
    case 'file':
      if (parsed.host !== '') throw fail('file:// URLs name no host')
      return { transport: 'file', url: raw }
    case 'git':
    case 'http':
    case 'https':
      if (parsed.username !== '' || parsed.password !== '')
        throw fail('carries credentials; give them as credentials (a secret) instead')
      if (parsed.hostname === '') throw fail('names no host')
      return { transport: scheme === 'git' ? 'git' : 'http', url: raw }
    case 'ssh':
    case 'git+ssh':
    case 'ssh+git':
      if (parsed.password !== '') throw fail('carries a password; ssh remotes use a private key')
      if (parsed.hostname === '') throw fail('names no host')
      return {
        transport: 'ssh',
        url: raw,
        host: parsed.hostname.replace(/^\[|\]$/g, ''),
        port: parsed.port === '' ? 22 : Number(parsed.port),
      }
    default:
      throw fail(`scheme ${scheme}:// is not supported`)
  }
}

/** The URL with any user-info removed, for messages. */
export function redactUrl(raw: string): string {
  return String(raw).replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, '$1***@')
}
