/**
 * Starting test processes and waiting for the JSON line they print once listening; every child
 * started here is killed when the test process exits, so a failed test leaves nothing behind.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

const children = new Set<ChildProcess>()
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL')
})

/** A started child and the first JSON line it printed. */
export interface StartedChild<T> {
  child: ChildProcess
  ready: T
  /** Everything it wrote to stderr so far (for failure messages). */
  stderr: () => string
  /** Resolves with the exit code or signal once it ended. */
  exited: Promise<number | NodeJS.Signals | null>
}

/**
 * Spawns `node --import tsx SCRIPT ARGS…` and resolves once it prints a JSON line with a `url`.
 * @throws when it exits first or prints nothing within `timeoutMs`.
 */
export function startTsChild<T>(
  script: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<StartedChild<T>> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, script), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.add(child)
  let err = ''
  child.stderr!.on('data', (d: Buffer) => {
    err = (err + d.toString()).slice(-8000)
  })
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.once('exit', (code, signal) => {
      children.delete(child)
      resolve(signal ?? code)
    }),
  )
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${script} printed nothing within ${options.timeoutMs ?? 20_000} ms: ${err}`))
    }, options.timeoutMs ?? 20_000)
    let out = ''
    const onData = (d: Buffer) => {
      out += d.toString()
      // The ready line is the first JSON object with a `url`; log lines may come before it.
      const line = out.split('\n').find((l) => l.trim().startsWith('{') && l.includes('"url"'))
      if (!line) return
      clearTimeout(timer)
      child.stdout!.off('data', onData)
      child.stdout!.resume()
      resolve({ child, ready: JSON.parse(line) as T, stderr: () => err, exited })
    }
    child.stdout!.on('data', onData)
    exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`${script} exited (${code}) before it was ready: ${err}`))
    })
  })
}
