/**
 * Real repositories and servers for the git layer's tests: a bare origin made with git itself,
 * `git daemon` for git://, `git http-backend` behind a node:http CGI bridge with basic auth, and
 * sshd with keys generated here. Everything binds 127.0.0.1 and lives in a temp folder.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createConnection, createServer as createTcpServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { dirname, join } from 'node:path'

const IDENTITY = {
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: { ...process.env, ...IDENTITY }, encoding: 'utf8' }).trim()
}

export function tempDir(prefix = 'regent-git-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

export interface Origin {
  /** The bare repository. */
  bare: string
  /** A working clone used to make commits. */
  work: string
  /** Writes (string/Buffer) or symlinks (`{ link }`) files, deletes others, commits and pushes to `branch`. */
  push(files: Record<string, string | Buffer | { link: string }>, deletes?: string[], branch?: string): string
}

/** A bare repository under `root/name.git` with a first commit of `files` on main. */
export function makeOrigin(
  root: string,
  files: Record<string, string | Buffer | { link: string }>,
  name = 'repo',
): Origin {
  const bare = join(root, `${name}.git`)
  const work = join(root, `${name}-work`)
  git(root, 'init', '--quiet', '--bare', '-b', 'main', bare)
  git(root, 'init', '--quiet', '-b', 'main', work)
  git(work, 'remote', 'add', 'origin', bare)
  const push: Origin['push'] = (changes, deletes = [], branch = 'main') => {
    for (const [path, content] of Object.entries(changes)) {
      const file = join(work, path)
      mkdirSync(dirname(file), { recursive: true })
      rmSync(file, { force: true })
      if (typeof content === 'object' && !Buffer.isBuffer(content)) symlinkSync(content.link, file)
      else writeFileSync(file, content)
    }
    for (const path of deletes) rmSync(join(work, path), { force: true })
    git(work, 'add', '-A')
    git(work, 'commit', '--quiet', '--allow-empty', '-m', `change ${Object.keys(changes).join(',')}`)
    git(work, 'push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`)
    return git(work, 'rev-parse', 'HEAD')
  }
  push(files)
  return { bare, work, push }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createTcpServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })
}

/** Waits (bounded) until something accepts connections on the port. */
export async function waitForPort(port: number, tries = 100): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.destroy()
        resolve(true)
      })
      socket.on('error', () => resolve(false))
    })
    if (open) return true
    await new Promise((r) => setTimeout(r, 50))
  }
  return false
}

export function stop(child: ChildProcess | undefined): void {
  if (child?.pid !== undefined && child.exitCode === null) child.kill('SIGKILL')
}

/** `git daemon` serving every repository under `root` (fetch and push) on 127.0.0.1. */
export async function startGitDaemon(root: string): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort()
  const child = spawn(
    'git',
    [
      'daemon',
      '--reuseaddr',
      `--base-path=${root}`,
      '--export-all',
      '--enable=receive-pack',
      '--listen=127.0.0.1',
      `--port=${port}`,
      root,
    ],
    { stdio: 'ignore' },
  )
  if (!(await waitForPort(port))) throw new Error('git daemon did not start')
  return { port, child }
}

/**
 * `git http-backend` behind a small CGI bridge with basic auth (plain http on loopback: the
 * credentials path through git is the same as over TLS). `delayMs` holds each request, so a test
 * can look at the process table while a fetch is in flight.
 */
export async function startHttpBackend(
  root: string,
  logins: Array<{ username: string; password: string }>,
  delayMs = 0,
): Promise<{ port: number; server: Server; requests: string[] }> {
  const accepted = new Map(
    logins.map((l) => [`Basic ${Buffer.from(`${l.username}:${l.password}`).toString('base64')}`, l.username]),
  )
  const requests: string[] = []
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    requests.push(`${req.method} ${url.pathname}`)
    const user = accepted.get(req.headers.authorization ?? '')
    if (user === undefined) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end('unauthorized')
      return
    }
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        REMOTE_USER: user,
        REMOTE_ADDR: '127.0.0.1',
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
        HTTP_CONTENT_ENCODING: String(req.headers['content-encoding'] ?? ''),
        ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    })
    req.pipe(cgi.stdin)
    const chunks: Buffer[] = []
    cgi.stdout.on('data', (c: Buffer) => chunks.push(c))
    cgi.on('close', () => {
      const out = Buffer.concat(chunks)
      const split = out.indexOf('\r\n\r\n')
      const head = out.subarray(0, split).toString('utf8')
      const headers: Record<string, string> = {}
      let status = 200
      for (const line of head.split('\r\n')) {
        const colon = line.indexOf(':')
        const name = line.slice(0, colon).trim()
        const value = line.slice(colon + 1).trim()
        if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0])
        else if (name !== '') headers[name] = value
      }
      setTimeout(() => res.writeHead(status, headers).end(out.subarray(split + 4)), delayMs)
    })
  })
  const port = await freePort()
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return { port, server, requests }
}

/** A TCP server that accepts connections and never answers (for timeouts). */
export async function startSilentServer(): Promise<{ port: number; close: () => void }> {
  const sockets: import('node:net').Socket[] = []
  const server = createTcpServer((socket) => sockets.push(socket))
  const port = await freePort()
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return {
    port,
    close: () => {
      for (const s of sockets) s.destroy()
      server.close()
    },
  }
}

/** Lines of `ps -eo args` (every process's command line). */
export function processCommandLines(): string {
  return execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
}

export interface Sshd {
  port: number
  user: string
  child: ChildProcess
  /** `ssh-ed25519 AAAA…` of the server. */
  hostPublicKey: string
  /** Private keys authorised for `user`: one without and one with a passphrase. */
  plainKey: string
  lockedKey: string
  passphrase: string
  /** A key sshd does not accept. */
  strangerKey: string
  /** Another host's public key (for a mismatch). */
  otherHostPublicKey: string
}

function keygen(file: string, passphrase = ''): { privateKey: string; publicKey: string } {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', 'regent-test', '-f', file])
  return {
    privateKey: readFileSync(file, 'utf8'),
    publicKey: readFileSync(`${file}.pub`, 'utf8').trim().split(' ').slice(0, 2).join(' '),
  }
}

/**
 * Debian's sshd on a 127.0.0.1 port, with host and client keys generated here and the current
 * user as the test user (sshd run by root may log in anyone; run by another user, only that user).
 * Resolves to a reason string when sshd is not installed or does not start.
 */
export async function startSshd(root: string): Promise<Sshd | string> {
  const sshdPath = '/usr/sbin/sshd'
  if (!existsSync(sshdPath)) return `${sshdPath} is not installed (Debian package openssh-server)`
  const dir = join(root, 'sshd')
  mkdirSync(dir, { recursive: true })
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 })
  const host = keygen(join(dir, 'host_ed25519'))
  const otherHost = keygen(join(dir, 'other_host_ed25519'))
  const plain = keygen(join(dir, 'plain'))
  const passphrase = 'correct horse battery staple'
  const locked = keygen(join(dir, 'locked'), passphrase)
  const stranger = keygen(join(dir, 'stranger'))
  writeFileSync(join(dir, 'authorized_keys'), `${plain.publicKey}\n${locked.publicKey}\n`, { mode: 0o600 })
  const port = await freePort()
  const user = userInfo().username
  writeFileSync(
    join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_ed25519')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AllowUsers ${user}`,
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      'StrictModes no',
      'UsePAM no',
      '',
    ].join('\n'),
  )
  const child = spawn(sshdPath, ['-D', '-e', '-f', join(dir, 'sshd_config')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let log = ''
  child.stderr?.on('data', (c: Buffer) => {
    log = (log + c.toString('utf8')).slice(-4000)
  })
  if (!(await waitForPort(port, 60)) || child.exitCode !== null) {
    stop(child)
    return `sshd did not start: ${log.trim() || 'no output'}`
  }
  return {
    port,
    user,
    child,
    hostPublicKey: host.publicKey,
    plainKey: plain.privateKey,
    lockedKey: locked.privateKey,
    passphrase,
    strangerKey: stranger.privateKey,
    otherHostPublicKey: otherHost.publicKey,
  }
}
