/**
 * `regent login`: signs in to a regent service and stores its URL and an API token in the
 * session file (`--styra-config`, default `.styra.yaml`, mode 0600) for `regent pull`.
 *
 * Where the token comes from: `--read-token` (standard input), `--secret-file`, or the browser
 * flow. The browser flow listens on 127.0.0.1 (a random port) and opens
 * `<url>/cli-sign-in?callback=<port>&state=<nonce>` (only printed with `--no-open`): a console
 * page there hands a token back by sending the browser to
 * `http://127.0.0.1:<port>/callback?state=<nonce>&token=<token>`. regent's service has no console
 * page yet, so the local page answers a form for pasting a token as well. Every token is checked
 * against the service (`GET /v1/authz/roles`, open to any valid token) before it is stored.
 */
import { spawn } from 'node:child_process'
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Command } from 'commander'
import { parseGoDuration } from '../../service/go-duration.js'
import {
  type CliLog,
  type ConnectionOptions,
  cliLog,
  DEFAULT_LIBRARIES_DIR,
  DEFAULT_SESSION_FILE,
  getJson,
  readSecretFile,
  readSession,
  serviceUrl,
  writeSession,
} from '../service-session.js'
import { readStdin } from '../stdin.js'
import { CommandError, type CommandIo, PROCESS_IO, reportError } from './sign.js'

/** Options of `regent login`. */
export interface LoginOptions extends ConnectionOptions {
  open: boolean
  readToken?: boolean
  timeout: string
}

/** Builds the `login` command. */
export function loginCommand(): Command {
  return new Command('login')
    .description('sign in to a regent service and store its URL and an API token for regent pull')
    .option('--url <url>', "the service, e.g. https://regent.example.com (default: the session file's)")
    .option('--styra-config <file>', 'the session file to write (mode 0600)', DEFAULT_SESSION_FILE)
    .option(
      '--libraries <dir>',
      `folder regent pull writes libraries to, stored in the session (default ${DEFAULT_LIBRARIES_DIR})`,
    )
    .option('--no-open', 'print the sign-in URL instead of opening a browser')
    .option('--read-token', 'read the API token from standard input instead of signing in with a browser')
    .option('--secret-file <file>', 'read the API token from this file instead of signing in with a browser')
    .option('--timeout <duration>', 'how long the browser flow waits for the sign-in', '1m')
    .option('--log-format <format>', 'text, json or json-pretty', 'text')
    .option('--log-level <level>', 'debug, info or error', 'info')
    .action(async (options: LoginOptions) => {
      process.exitCode = await runLogin(options)
    })
}

/** Runs `regent login`; resolves to the exit code. */
export async function runLogin(options: LoginOptions, io: CommandIo = PROCESS_IO): Promise<number> {
  try {
    const log = cliLog(options.logFormat, options.logLevel, io.stderr)
    const file = options.styraConfig ?? DEFAULT_SESSION_FILE
    const session = readSession(file)
    const url = serviceUrl(options, session)
    if (options.readToken && options.secretFile !== undefined)
      throw new CommandError('--read-token and --secret-file both name the token: use one', 2)
    const timeoutMs = parseGoDuration(options.timeout)
    if (timeoutMs === undefined || timeoutMs <= 0)
      throw new CommandError(
        `--timeout: "${options.timeout}" is not a positive duration such as 1m or 30s`,
        2,
      )
    let token: string
    if (options.readToken) {
      token = (await readStdin()).trim()
      if (token === '') throw new CommandError('--read-token: standard input holds no token')
    } else if (options.secretFile !== undefined) token = readSecretFile(options.secretFile)
    else token = await browserSignIn(url, options.open, timeoutMs, log)
    await getJson(`${url}/v1/authz/roles`, token)
    writeSession(file, {
      ...session,
      url,
      token,
      ...(options.libraries !== undefined ? { libraries: options.libraries } : {}),
    })
    log.info('Successfully logged in', { url, session: file })
    return 0
  } catch (err) {
    return reportError('login', err, io)
  }
}

/** True when `a` equals `b`, in time independent of where they differ. */
function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

const PASTE_FORM = (state: string) => `<!doctype html><meta charset="utf-8"><title>regent login</title>
<p>Paste an API token of the service (create one with PUT /v1/tokens/{id}):</p>
<form method="get" action="/callback"><input type="hidden" name="state" value="${state}">
<input name="token" size="60" autofocus> <button>Sign in</button></form>`

/**
 * Waits for the browser to bring a token to a local callback and resolves to it.
 * @throws CommandError when no sign-in arrives within `timeoutMs`.
 */
async function browserSignIn(url: string, open: boolean, timeoutMs: number, log: CliLog): Promise<string> {
  const state = randomBytes(16).toString('hex')
  let deliver: (token: string) => void = () => {}
  const received = new Promise<string>((resolve) => {
    deliver = resolve
  })
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const query = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams
    const send = (status: number, html: string) => {
      res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' })
      res.end(html)
    }
    if (req.method !== 'GET') return send(405, 'method not allowed')
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname
    if (path === '/') return send(200, PASTE_FORM(state))
    if (path !== '/callback') return send(404, 'not found')
    // The state proves the request comes from the page this run opened, not another site.
    if (!sameSecret(query.get('state') ?? '', state))
      return send(400, 'this sign-in link is not for this regent login')
    const token = (query.get('token') ?? '').trim()
    if (token === '') return send(400, 'no token')
    send(200, '<!doctype html><meta charset="utf-8"><p>regent is signed in. You may close this tab.</p>')
    deliver(token)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  const signIn = `${url}/cli-sign-in?callback=${port}&state=${state}`
  try {
    if (open) {
      log.info(`Opening ${signIn}`)
      openBrowser(signIn, log)
    } else log.info(`Open this URL in a browser to sign in: ${signIn}`)
    log.info(`Or paste a token at http://127.0.0.1:${port}/ (waiting ${timeoutMs / 1000}s)`)
    let timer: NodeJS.Timeout | undefined
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new CommandError(
              `no sign-in within ${timeoutMs / 1000}s: create a token (PUT /v1/tokens/{id}) and run regent login --read-token`,
            ),
          ),
        timeoutMs,
      )
    })
    try {
      return await Promise.race([received, timedOut])
    } finally {
      clearTimeout(timer)
    }
  } finally {
    server.closeAllConnections()
    server.close()
  }
}

/** Opens `url` in the desktop's browser; a failure only means the user opens it by hand. */
function openBrowser(url: string, log: CliLog): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]]
  try {
    const child = spawn(command, args as string[], { stdio: 'ignore', detached: true })
    child.on('error', () => log.info(`Could not open a browser: open ${url} by hand`))
    child.unref()
  } catch {
    log.info(`Could not open a browser: open ${url} by hand`)
  }
}
