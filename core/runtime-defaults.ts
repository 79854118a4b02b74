/**
 * Defaults that depend on where regent runs, read from the environment so that the container
 * image can change them without flags: in a checkout state goes to `./.regent/<part>` and servers
 * listen on loopback; the image sets `REGENT_DATA_DIR=/var/lib/regent` (its volume, the only
 * writable path) and `REGENT_LISTEN_HOST=0.0.0.0` (so its EXPOSEd ports are reachable).
 *
 * These are defaults only: a flag or a config-file key still wins (DESIGN: flags override the
 * config file, the config file overrides defaults), so a sidecar whose config says
 * `relay.addr: 127.0.0.1:8282` keeps listening on the pod's loopback inside the image too.
 */

import { join } from 'node:path'

/** Base folder of every part's state when the environment does not say. */
export const DEFAULT_DATA_ROOT = './.regent'
/** Host servers listen on when the environment does not say. */
export const DEFAULT_LISTEN_HOST = '127.0.0.1'

type Env = Record<string, string | undefined>

/**
 * The folder a part (`service`, `relay`, `demo`) keeps its state in by default:
 * `$REGENT_DATA_DIR/<part>`, else `./.regent/<part>`.
 *
 * @example defaultDataDir('service', { REGENT_DATA_DIR: '/var/lib/regent' }) // '/var/lib/regent/service'
 */
export function defaultDataDir(part: string, env: Env = process.env): string {
  const root = env.REGENT_DATA_DIR?.trim()
  return root ? join(root, part) : `${DEFAULT_DATA_ROOT}/${part}`
}

/**
 * The address a server listens on by default: `$REGENT_LISTEN_HOST:<port>`, else
 * `<fallbackHost>:<port>` (loopback; `regent run -s` passes `localhost` as OPA does).
 *
 * @example defaultListenAddr(8181, { REGENT_LISTEN_HOST: '0.0.0.0' }) // '0.0.0.0:8181'
 */
export function defaultListenAddr(
  port: number,
  env: Env = process.env,
  fallbackHost = DEFAULT_LISTEN_HOST,
): string {
  const host = env.REGENT_LISTEN_HOST?.trim() || fallbackHost
  // An IPv6 literal needs brackets to be told from the port.
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`
}
