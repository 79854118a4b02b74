/**
 * The server flags of `regent run -s` that make it a production agent, as OPA's `opa run` names
 * them: authentication and authorization, TLS, the diagnostic listener, h2c, readiness, shutdown,
 * unix sockets, watching, logging and pprof. `addServerOptions` declares them on the command and
 * `serverSettings` checks them; every refusal names the flag (the CLI exits 2 with it).
 */
import { type Command, Option } from 'commander'
import type { AuthenticationScheme } from '../../agent/authn.js'
import { DEFAULT_AUTHORIZATION_DECISION } from '../../agent/authz.js'
import { CipherSuiteError, opensslCipherList } from '../../agent/cipher-suites.js'
import type { ListenAddress } from '../../agent/listen.js'
import type { LogFormat } from '../../agent/log-format.js'
import type { AgentServerSettings } from '../../agent/serve-agent.js'
import type { TlsSettings } from '../../agent/tls.js'
import { parseAddress } from '../../core/http/index.js'
import type { LogLevel } from '../../core/log.js'
import { parseDuration } from '../../core/rego/builtins/go-time.js'

/** The flags as commander parses them. */
export interface ServerFlags {
  // Optional so that callers (tests, other commands) may leave out what they do not set.
  authentication?: string
  authorization?: string
  tlsCertFile?: string
  tlsPrivateKeyFile?: string
  tlsCaCertFile?: string
  minTlsVersion?: string
  tlsCipherSuites?: string[]
  tlsCertRefreshPeriod?: string
  diagnosticAddr?: string[]
  h2c?: boolean
  readyTimeout?: string
  shutdownGracePeriod?: string
  shutdownWaitPeriod?: string
  unixSocketPerm?: string
  watch?: boolean
  logLevel?: string
  logFormat?: string
  logTimestampFormat?: string
  pprof?: boolean
}

/** The checked settings: what the agent acts on, and what the CLI itself uses. */
export interface ServerSettings extends AgentServerSettings {
  watch: boolean
  logLevel: LogLevel
  logFormat: LogFormat | undefined
  logTimestampFormat: string | undefined
}

const FLAG_DEFAULTS = {
  authentication: 'off',
  authorization: 'off',
  minTlsVersion: '1.2',
  tlsCipherSuites: [] as string[],
  tlsCertRefreshPeriod: '0s',
  diagnosticAddr: [] as string[],
  readyTimeout: '0',
  shutdownGracePeriod: '10',
  shutdownWaitPeriod: '0',
  unixSocketPerm: '755',
  logLevel: 'info',
} satisfies ServerFlags

type CheckedFlags = ServerFlags & typeof FLAG_DEFAULTS

function withoutUndefined(flags: ServerFlags): ServerFlags {
  return Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)) as ServerFlags
}

/** A server flag the CLI refuses (exit 2). */
export class ServerFlagError extends Error {}

const collect = (value: string, previous: string[]) => [...previous, value]

/** Declares the flags on `command`. */
export function addServerOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--authentication <scheme>',
        'client authentication: token (bearer) or tls (client certificate)',
      )
        .choices(['token', 'tls', 'off'])
        .default('off'),
    )
    .addOption(
      new Option('--authorization <scheme>', 'request authorization: basic (the system.authz policy)')
        .choices(['basic', 'off'])
        .default('off'),
    )
    .option('--tls-cert-file <file>', 'PEM certificate of the server (turns on HTTPS)')
    .option('--tls-private-key-file <file>', 'PEM private key of the server')
    .option('--tls-ca-cert-file <file>', 'PEM CA certificates that client certificates are verified against')
    .addOption(
      new Option('--min-tls-version <version>', 'minimum TLS version').choices(['1.2', '1.3']).default('1.2'),
    )
    .option(
      '--tls-cipher-suites <names>',
      'TLS 1.2 cipher suites by IANA name (comma-separated, repeatable)',
      collect,
      [],
    )
    .option('--tls-cert-refresh-period <duration>', 'how often the TLS files are re-read (0s: never)', '0s')
    .option(
      '--diagnostic-addr <host:port>',
      'listener for /health and /metrics only (repeatable)',
      collect,
      [],
    )
    .option('--h2c', 'accept HTTP/2 without TLS beside HTTP/1.1')
    .option('--ready-timeout <seconds>', 'how long to wait for plugins to be ready (0: no limit)', '0')
    .option('--shutdown-grace-period <seconds>', 'time in-flight requests get on shutdown', '10')
    .option(
      '--shutdown-wait-period <seconds>',
      'time to keep serving after a stop signal, before shutdown begins',
      '0',
    )
    .option('--unix-socket-perm <mode>', 'file mode of unix:// sockets (octal)', '755')
    .option('-w, --watch', 'reload policy and data files when they change')
    .addOption(
      new Option('-l, --log-level <level>', 'log level')
        .choices(['debug', 'info', 'warn', 'error'])
        .default('info'),
    )
    .addOption(
      new Option('--log-format <format>', 'log format (default: json, pretty on a terminal)').choices([
        'text',
        'json',
        'json-pretty',
      ]),
    )
    .option(
      '--log-timestamp-format <layout>',
      'Go time layout of the log timestamp, e.g. 2006-01-02T15:04:05Z07:00',
    )
    .option('--pprof', 'serve a CPU profile at /debug/pprof/profile?seconds=N')
}

/** Checks the flags. @throws ServerFlagError naming the flag at fault. */
export function serverSettings(given: ServerFlags): ServerSettings {
  const flags = { ...FLAG_DEFAULTS, ...withoutUndefined(given) }
  const authentication = oneOf('--authentication', flags.authentication, ['token', 'tls', 'off'] as const)
  const authorization = oneOf('--authorization', flags.authorization, ['basic', 'off'] as const)
  const tls = tlsSettings(flags, authentication)
  return {
    authentication,
    authorizationDecision: authorization === 'basic' ? DEFAULT_AUTHORIZATION_DECISION : undefined,
    tls,
    diagnosticAddrs: flags.diagnosticAddr.map((a) => listenAddress('--diagnostic-addr', a)),
    h2c: flags.h2c === true,
    readyTimeoutSeconds: integer('--ready-timeout', flags.readyTimeout, true),
    graceMs: integer('--shutdown-grace-period', flags.shutdownGracePeriod) * 1000,
    waitMs: integer('--shutdown-wait-period', flags.shutdownWaitPeriod) * 1000,
    unixSocketPerm: socketPerm(flags.unixSocketPerm),
    watch: flags.watch === true,
    logLevel: oneOf('--log-level', flags.logLevel, ['debug', 'info', 'warn', 'error'] as const),
    logFormat:
      flags.logFormat === undefined
        ? undefined
        : oneOf('--log-format', flags.logFormat, ['json', 'json-pretty', 'text'] as const),
    logTimestampFormat: flags.logTimestampFormat,
    pprof: flags.pprof === true,
  }
}

/** `HOST:PORT`, `:PORT` (every interface, as Go) or `unix:///path/to.sock`. */
export function listenAddress(flag: string, text: string): ListenAddress {
  if (text.startsWith('unix://')) {
    const path = text.slice('unix://'.length)
    if (path === '') throw new ServerFlagError(`${flag}: ${text}: expected unix:///path/to/socket`)
    return { kind: 'unix', path }
  }
  try {
    return { kind: 'tcp', ...parseAddress(text, '0.0.0.0') }
  } catch (err) {
    throw new ServerFlagError(`${flag}: ${(err as Error).message}`)
  }
}

function tlsSettings(flags: CheckedFlags, authentication: AuthenticationScheme): TlsSettings | undefined {
  const { tlsCertFile: certFile, tlsPrivateKeyFile: keyFile, tlsCaCertFile: caFile } = flags
  if (Boolean(certFile) !== Boolean(keyFile)) {
    throw new ServerFlagError('--tls-cert-file and --tls-private-key-file must be given together')
  }
  if (authentication === 'tls' && (!certFile || !caFile)) {
    throw new ServerFlagError(
      '--authentication tls needs --tls-cert-file, --tls-private-key-file and --tls-ca-cert-file',
    )
  }
  if (!certFile || !keyFile) {
    const orphan = [
      ['--tls-ca-cert-file', caFile],
      ['--tls-cipher-suites', flags.tlsCipherSuites.length > 0 ? 'x' : undefined],
    ].find(([, v]) => v)
    if (orphan) throw new ServerFlagError(`${orphan[0]} needs --tls-cert-file and --tls-private-key-file`)
    return undefined
  }
  let ciphers: string | undefined
  try {
    ciphers = flags.tlsCipherSuites.length > 0 ? opensslCipherList(flags.tlsCipherSuites) : undefined
  } catch (err) {
    if (err instanceof CipherSuiteError) throw new ServerFlagError(err.message)
    throw err
  }
  const minVersion = oneOf('--min-tls-version', flags.minTlsVersion, ['1.2', '1.3'] as const)
  return {
    certFile,
    keyFile,
    ...(caFile ? { caFile } : {}),
    minVersion: minVersion === '1.3' ? 'TLSv1.3' : 'TLSv1.2',
    ...(ciphers ? { ciphers } : {}),
    requireClientCert: authentication === 'tls',
    refreshMs: durationMs('--tls-cert-refresh-period', flags.tlsCertRefreshPeriod),
  }
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T
  throw new ServerFlagError(`${flag}: expected one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`)
}

function integer(flag: string, text: string, allowNegative = false): number {
  const n = Number(text)
  if (!Number.isInteger(n) || (!allowNegative && n < 0)) {
    throw new ServerFlagError(
      `${flag}: expected a${allowNegative ? 'n' : ' non-negative'} integer number of seconds, got ${JSON.stringify(text)}`,
    )
  }
  return n
}

function durationMs(flag: string, text: string): number {
  let ns: bigint
  try {
    ns = parseDuration(text)
  } catch {
    throw new ServerFlagError(`${flag}: invalid duration ${JSON.stringify(text)} (e.g. 30s, 5m)`)
  }
  if (ns < 0n) throw new ServerFlagError(`${flag}: must not be negative`)
  return Number(ns / 1_000_000n)
}

function socketPerm(text: string): number {
  if (!/^[0-7]{3,4}$/.test(text)) {
    throw new ServerFlagError(
      `--unix-socket-perm: expected an octal file mode such as 755, got ${JSON.stringify(text)}`,
    )
  }
  return Number.parseInt(text, 8)
}
