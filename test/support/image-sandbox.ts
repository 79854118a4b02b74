/**
 * Runs the built `dist/` as the container image runs it, without Docker: an `/app`-like folder
 * (package.json, node_modules, dist/, bin/) started as uid/gid 1000 inside fresh PID, network and
 * mount namespaces (`unshare`), where every world-writable folder, the app and the repository are
 * mounted read-only and only the volume folder is writable. The image's ENV is passed as the
 * Dockerfile sets it. Health checks run as `docker exec` runs them: `nsenter` into the same
 * namespaces, as the same user. Needs root and util-linux (`unshare`, `nsenter`, `setpriv`) plus
 * `ip`; `sandboxUnavailable()` says why not when they are missing.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
} from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO = fileURLToPath(new URL('../../', import.meta.url))
/** The image's user (Dockerfile `USER 1000:1000`). */
export const IMAGE_UID = 1000
/** The image's `VOLUME`. */
export const IMAGE_VOLUME = '/var/lib/regent'

/** Why the sandbox cannot run here, or undefined when it can. */
export function sandboxUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'needs Linux namespaces'
  if (process.getuid?.() !== 0) return 'needs root to create namespaces and switch to uid 1000'
  for (const tool of ['unshare', 'nsenter', 'setpriv', 'ip', 'mount']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
      return `needs ${tool} (util-linux, iproute2)`
  }
  const probe = spawnSync('unshare', [
    '--pid',
    '--net',
    '--mount',
    '--fork',
    '--mount-proc',
    'ip',
    'link',
    'set',
    'lo',
    'up',
  ])
  if (probe.status !== 0) return `cannot create namespaces here: ${String(probe.stderr).trim()}`
  return undefined
}

/** Lays out `<dir>/app` as the image's /app: package.json, node_modules, dist/ (built now), bin/. */
export function buildImageApp(dir: string): string {
  const app = join(dir, 'app')
  mkdirSync(join(app, 'bin'), { recursive: true })
  copyFileSync(join(REPO, 'package.json'), join(app, 'package.json'))
  for (const file of readdirSync(join(REPO, 'bin')))
    copyFileSync(join(REPO, 'bin', file), join(app, 'bin', file))
  symlinkSync(realpathSync(join(REPO, 'node_modules')), join(app, 'node_modules'))
  // `npm run build`'s bundle (scripts/bundle.ts), into the app folder instead of the checkout's dist/.
  execFileSync(process.execPath, ['--import', 'tsx', join(REPO, 'scripts/bundle.ts'), join(app, 'dist')], {
    cwd: REPO,
    stdio: 'pipe',
  })
  chmodSync(dir, 0o755)
  return app
}

/** The image's `ENV` lines, read from the Dockerfile so the test runs what the image sets. */
export function imageEnv(): Record<string, string> {
  const dockerfile = readFileSync(join(REPO, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ')
  const runStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '))
  const env: Record<string, string> = {}
  for (const line of runStage.matchAll(/^ENV\s+(.+)$/gm)) {
    for (const pair of line[1]!.matchAll(/(\w+)=(\S+)/g)) env[pair[1]!] = pair[2]!
  }
  return env
}

const asImageUser = [
  'setpriv',
  `--reuid=${IMAGE_UID}`,
  `--regid=${IMAGE_UID}`,
  '--clear-groups',
  '--inh-caps=-all',
]

/** A running "container": the regent process is PID 1 of its own namespaces. */
export interface Container {
  child: ChildProcess
  output(): string
  /** Runs the image's HEALTHCHECK command inside the container; resolves its exit code and output. */
  healthcheck(arg?: string): { code: number | null; output: string }
  stop(): Promise<void>
}

/**
 * Starts `node <app>/bin/regent.js ...args` as the image's ENTRYPOINT does, with `cwd` = the app
 * (the image's WORKDIR), the image's ENV, read-only everything but `volume`.
 */
export function startContainer(app: string, volume: string, args: string[], readOnly: string[]): Container {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent', ...imageEnv() }
  const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`)
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
  const script = [
    'set -e',
    'ip link set lo up',
    // The volume at the image's VOLUME path; a tmpfs over /var/lib gives the mount point a place
    // in this namespace only (the host's /var/lib is untouched).
    `mount -t tmpfs -o mode=0755 tmpfs /var/lib && mkdir ${IMAGE_VOLUME}`,
    `mount --bind ${quote(volume)} ${IMAGE_VOLUME}`,
    // Then read-only everything else a non-root user could write (after the volume's bind, which
    // would otherwise inherit the read-only flag of /tmp).
    ...readOnly.map((d) => `mount --bind ${quote(d)} ${quote(d)} && mount -o remount,bind,ro ${quote(d)}`),
    `cd ${quote(app)}`,
    `exec ${[...asImageUser, 'env', '-i', ...envArgs, process.execPath, join(app, 'bin/regent.js'), ...args].map(quote).join(' ')}`,
  ].join('\n')
  const child = spawn(
    'unshare',
    ['--pid', '--net', '--mount', '--fork', '--mount-proc', 'sh', '-c', script],
    {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  child.stdout?.on('data', (chunk) => {
    output += chunk
  })
  child.stderr?.on('data', (chunk) => {
    output += chunk
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  /** The regent process: unshare's only child, PID 1 inside. */
  const mainPid = () => {
    const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim()
    return Number(children.split(/\s+/)[0])
  }
  return {
    child,
    output: () => output,
    healthcheck(arg) {
      const pid = mainPid()
      const command = [
        ...asImageUser,
        'env',
        '-i',
        ...envArgs,
        process.execPath,
        join(app, 'bin/healthcheck.js'),
      ]
      const run = spawnSync(
        'nsenter',
        [`--target=${pid}`, '--pid', '--net', '--mount', ...command, ...(arg ? [arg] : [])],
        { cwd: '/', timeout: 15_000, encoding: 'utf8' },
      )
      return { code: run.status, output: `${run.stdout}${run.stderr}` }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        // PID 1 of the namespace stops on SIGTERM as in `docker stop`; unshare exits after it.
        process.kill(mainPid(), 'SIGTERM')
        const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 10_000)
        await exited
        clearTimeout(timer)
      }
    },
  }
}
