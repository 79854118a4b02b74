/**
 * Helpers of the benches that measure real processes (relay-idle, relay-long-poll): a process's
 * resident memory, a free loopback port, stopping a child, and building dist/ as the image does.
 */
import { type ChildProcess, execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { ROOT } from '../support/logs-child.js'

/** `VmRSS` of a process in KiB (0 when it has no pid). */
export function rssKb(pid: number | undefined): number {
  if (!pid) return 0
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
}

/** KiB as whole MB for the printed lines. */
export const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`

/** A port free on 127.0.0.1 at the time of asking. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Ends a child (SIGTERM, SIGKILL after 5 s) and resolves once it is gone. */
export function stopChild(child: ChildProcess): Promise<void> {
  // A child ended by a signal has signalCode set and exitCode null: both mean it is gone.
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
    setTimeout(() => child.kill('SIGKILL'), 5000).unref()
  })
}

/** Builds dist/ with the project's own build script (scripts/bundle.ts), as the image does; returns the ms taken. */
export function buildDist(): number {
  const t0 = performance.now()
  execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'bundle.ts')], {
    cwd: ROOT,
    stdio: 'inherit',
  })
  return performance.now() - t0
}
