/**
 * The base URL generated configs send agents to, with the system's agent token. It is
 * `service.public_url` when set. Without it, the request's own address is used, but only when
 * it cannot have been forged into someone else's: the Host header must name the address the
 * connection arrived on (`localhost` too on loopback) or a host in `service.allowed_hosts`.
 * Otherwise anyone who can reach the service with a token could make it hand out configs that
 * point agents, token included, at a host of their choosing.
 *
 * `X-Forwarded-Host`/`-Proto` are ignored unless `service.trust_forwarded_host` says a reverse
 * proxy sets them; the forwarded host must then be in `allowed_hosts` (the proxy copies it from
 * its client, who can write anything).
 */
import type { IncomingMessage } from 'node:http'
import type { Context } from 'hono'
import { badRequest } from '../core/http/index.js'
import type { ServiceSection } from './config.js'
import type { ServiceEnv } from './types.js'
import { printable } from './validation.js'

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1)$/

/**
 * The origin (`scheme://host[:port]`, no trailing slash) agents should use to reach this service.
 * @throws HttpError 400 when `public_url` is unset and the requested host is not allowed.
 */
export function publicBaseUrl(c: Context<ServiceEnv>, config: ServiceSection): string {
  if (config.public_url !== undefined) return config.public_url.replace(/\/+$/, '')
  const requestUrl = new URL(c.req.url)
  const forwardedHost = config.trust_forwarded_host ? firstValue(c.req.header('X-Forwarded-Host')) : undefined
  if (forwardedHost !== undefined) {
    const proto = firstValue(c.req.header('X-Forwarded-Proto'))?.toLowerCase()
    const scheme = proto === 'https' || proto === 'http' ? proto : requestUrl.protocol.slice(0, -1)
    const host = normalHost(forwardedHost)
    if (host !== undefined && inAllowList(host, config.allowed_hosts)) return `${scheme}://${host}`
    throw refused(forwardedHost, 'X-Forwarded-Host')
  }
  const header = c.req.header('Host') ?? ''
  const host = normalHost(header)
  if (host !== undefined && (inAllowList(host, config.allowed_hosts) || isArrivalAddress(c, host))) {
    return `${requestUrl.protocol}//${host}`
  }
  throw refused(header, 'Host')
}

function refused(value: string, header: string) {
  return badRequest(
    `${header} "${printable(value)}" is neither the address this service listens on nor in ` +
      'service.allowed_hosts, so it is not used in a generated config; set service.public_url ' +
      'to the URL agents reach this service at (or add the host to service.allowed_hosts)',
  )
}

function firstValue(header: string | undefined): string | undefined {
  const first = header?.split(',')[0]?.trim()
  return first === '' ? undefined : first
}

/** `host[:port]` lower-cased as a URL would print it, or undefined when it is not just that. */
function normalHost(value: string): string | undefined {
  if (value === '' || /[\s/\\?#@]/.test(value)) return undefined
  try {
    const url = new URL(`http://${value}`)
    // Anything the URL parser rewrote (userinfo, percent escapes, a path) is refused.
    return url.host === value.toLowerCase() || `${url.host}:80` === value.toLowerCase()
      ? value.toLowerCase()
      : undefined
  } catch {
    return undefined
  }
}

/** `host` matches an entry: `name` (any port) or `name:port` (that port only). */
function inAllowList(host: string, allowed: readonly string[]): boolean {
  const name = hostName(host)
  return allowed.some((entry) => {
    const e = entry.toLowerCase()
    return e === host || e === name
  })
}

function hostName(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1)
  const colon = host.lastIndexOf(':')
  return colon === -1 ? host : host.slice(0, colon)
}

function hostPort(host: string): string | undefined {
  const rest = host.slice(hostName(host).length)
  return rest.startsWith(':') ? rest.slice(1) : undefined
}

/**
 * Whether `host` names the local address and port the request's connection arrived on (what
 * the client actually reached, so a config naming it sends agents nowhere else).
 */
function isArrivalAddress(c: Context<ServiceEnv>, host: string): boolean {
  const socket = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket
  const address = socket?.localAddress?.replace(/^::ffff:/, '')
  const port = socket?.localPort
  if (address === undefined || port === undefined) return false
  if ((hostPort(host) ?? '80') !== String(port)) return false
  const name = hostName(host).replace(/^\[|\]$/g, '')
  if (name === address) return true
  return name === 'localhost' && LOOPBACK.test(address)
}
