/**
 * What `regent login` and `regent pull` share: the session file (`--styra-config`, default
 * `.styra.yaml` in the working folder: the service URL, the API token, the libraries folder;
 * written with mode 0600 because it holds a token), where the token comes from (the environment
 * variable REGENT_SERVICE_TOKEN, then `--secret-file`, then the session file), one-line logs on
 * stderr in the reference tool's text or JSON form, and JSON calls to the service.
 */
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml'
import { CommandError } from './commands/sign.js'

/** The environment variable whose API token overrides the stored one (and `--secret-file`). */
export const TOKEN_ENV = 'REGENT_SERVICE_TOKEN'

/** Where the session is kept when `--styra-config` names no file. */
export const DEFAULT_SESSION_FILE = '.styra.yaml'

/** Where `pull` writes libraries when neither `--libraries` nor the session names a folder. */
export const DEFAULT_LIBRARIES_DIR = '.styra/include'

/** What the session file holds (other keys found in it are kept on rewrite). */
export interface Session {
  url?: string
  token?: string
  libraries?: string
  [key: string]: unknown
}

/** The flags both commands take to reach the service. */
export interface ConnectionOptions {
  url?: string
  styraConfig?: string
  secretFile?: string
  libraries?: string
  logFormat: string
  logLevel: string
}

/**
 * The session file's content, or an empty session when there is none.
 * @throws CommandError naming the file when it is not a YAML mapping.
 */
export function readSession(file: string): Session {
  if (!existsSync(file)) return {}
  let parsed: unknown
  try {
    parsed = parseYaml(readFileSync(file, 'utf8'))
  } catch (err) {
    throw new CommandError(`${file}: not valid YAML: ${(err as Error).message.split('\n')[0]}`)
  }
  if (parsed === null || parsed === undefined) return {}
  if (typeof parsed !== 'object' || Array.isArray(parsed))
    throw new CommandError(`${file}: expected a mapping of url, token and libraries`)
  const session = parsed as Session
  for (const key of ['url', 'token', 'libraries'] as const)
    if (session[key] !== undefined && typeof session[key] !== 'string')
      throw new CommandError(`${file}: ${key}: expected a string`)
  return session
}

/**
 * Writes `session` to `file` with mode 0600 (created so: the token is never readable by others,
 * not even for a moment), through a temporary file renamed over the old one.
 */
export function writeSession(file: string, session: Session): void {
  const text = `# written by regent login: the service and the API token regent pull uses (keep private)\n${stringifyYaml(session)}`
  const temp = join(dirname(file), `.${Date.now()}-${process.pid}.session.tmp`)
  writeFileSync(temp, text, { mode: 0o600 })
  renameSync(temp, file)
  // An older file of another mode was replaced by the rename; make sure of the mode anyway.
  chmodSync(file, 0o600)
}

/** The service URL without a trailing slash. @throws CommandError when none is known. */
export function serviceUrl(options: ConnectionOptions, session: Session): string {
  const raw = options.url ?? session.url
  if (raw === undefined || raw === '')
    throw new CommandError('no service URL: pass --url (regent login --url stores it in the session file)')
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    throw new CommandError(`--url: "${raw}" is not a URL`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new CommandError(`--url: "${raw}" is not an http(s) URL`)
  return raw.replace(/\/+$/, '')
}

/** The token of a `--secret-file`: its content, trimmed. @throws CommandError when unreadable or empty. */
export function readSecretFile(file: string): string {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new CommandError(
      `--secret-file: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? err}`,
    )
  }
  const token = text.trim()
  if (token === '') throw new CommandError(`--secret-file: ${file} is empty`)
  return token
}

/**
 * The token `pull` uses: REGENT_SERVICE_TOKEN, else `--secret-file`, else the session's.
 * @throws CommandError when there is none.
 */
export function resolveToken(options: ConnectionOptions, session: Session): string {
  const fromEnv = process.env[TOKEN_ENV]?.trim()
  if (fromEnv) return fromEnv
  if (options.secretFile !== undefined) return readSecretFile(options.secretFile)
  if (session.token) return session.token
  throw new CommandError(`not logged in: run regent login (or set ${TOKEN_ENV})`)
}

const LEVELS = { debug: 0, info: 1, error: 2 } as const
type Level = keyof typeof LEVELS

/** One-line logs on stderr: `[INFO] message` (text) or JSON lines (`json`, `json-pretty`). */
export interface CliLog {
  debug(message: string, fields?: Record<string, unknown>): void
  info(message: string, fields?: Record<string, unknown>): void
  error(message: string, fields?: Record<string, unknown>): void
}

/** A logger for `--log-format` and `--log-level`. @throws CommandError (usage) for values it does not know. */
export function cliLog(
  format: string,
  level: string,
  write: (text: string) => void = (text) => {
    process.stderr.write(text)
  },
): CliLog {
  if (!['text', 'json', 'json-pretty'].includes(format))
    throw new CommandError(`--log-format: "${format}" is not one of text, json, json-pretty`, 2)
  if (!(level in LEVELS))
    throw new CommandError(`--log-level: "${level}" is not one of debug, info, error`, 2)
  const threshold = LEVELS[level as Level]
  const emit = (at: Level, message: string, fields: Record<string, unknown> = {}) => {
    if (LEVELS[at] < threshold) return
    if (format === 'text') {
      const extra = Object.entries(fields)
        .map(([k, v]) => ` ${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join('')
      write(`[${at.toUpperCase()}] ${message}${extra}\n`)
      return
    }
    const line = { level: at, msg: message, time: new Date().toISOString(), ...fields }
    write(`${JSON.stringify(line, null, format === 'json-pretty' ? 2 : undefined)}\n`)
  }
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    error: (m, f) => emit('error', m, f),
  }
}

/** How long one call to the service may take. */
const CALL_TIMEOUT_MS = 60_000

/**
 * `GET url` with the token, answering the parsed JSON body.
 * @throws CommandError with the service's message (401: the token is refused) or the network error.
 */
export async function getJson(url: string, token: string): Promise<unknown> {
  let res: Response
  try {
    res = await fetch(url, {
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    })
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause
    throw new CommandError(
      `cannot reach ${new URL(url).origin}: ${cause?.code ?? cause?.message ?? (err as Error).message}`,
    )
  }
  const text = await res.text()
  let body: unknown
  try {
    body = text === '' ? undefined : JSON.parse(text)
  } catch {
    body = undefined
  }
  if (!res.ok) {
    const message = (body as { message?: unknown } | undefined)?.message
    const reason = typeof message === 'string' ? message : text.slice(0, 200)
    if (res.status === 401) throw new CommandError(`the service refused the token (401): ${reason}`)
    throw new CommandError(`${new URL(url).pathname}: the service answered ${res.status}: ${reason}`)
  }
  return body
}
