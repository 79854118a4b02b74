/**
 * Real `regent` processes for end-to-end tests: started through bin/regent.js, their JSON log
 * lines collected, their address read from the `listening` line (they bind port 0).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const BIN = fileURLToPath(new URL('../../../bin/regent.js', import.meta.url))

/** A running regent process. */
export interface RegentProcess {
  child: ChildProcess
  /** `http://127.0.0.1:PORT` from its `listening` log line. */
  url: string
  /** Parsed JSON log lines so far. */
  logs: Array<Record<string, unknown>>
  stderr: string[]
  /** SIGTERM, then resolves with the exit code (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<number | null>
  /** SIGKILL, as a crash. */
  kill(): Promise<void>
}

/** Spawns `regent ARGS...` and waits for it to listen (rejects if it exits first or after `timeoutMs`). */
export function startRegent(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 20_000,
): Promise<RegentProcess> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, REGENT_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const logs: Array<Record<string, unknown>> = []
  const stderr: string[] = []
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`regent ${args[0]} did not listen within ${timeoutMs} ms: ${stderr.join('')}`))
    }, timeoutMs)
    let buffered = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8')
      const lines = buffered.split('\n')
      buffered = lines.pop()!
      for (const line of lines) {
        let entry: Record<string, unknown>
        try {
          entry = JSON.parse(line) as Record<string, unknown>
        } catch {
          continue
        }
        logs.push(entry)
        if (entry.msg === 'listening' && typeof entry.addr === 'string') {
          clearTimeout(timer)
          resolve({
            child,
            url: entry.addr,
            logs,
            stderr,
            async stop(graceMs = 10_000) {
              if (child.exitCode !== null) return child.exitCode
              child.kill('SIGTERM')
              const killer = setTimeout(() => child.kill('SIGKILL'), graceMs)
              const code = await exited
              clearTimeout(killer)
              return code
            },
            async kill() {
              if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
              await exited
            },
          })
        }
      }
    })
    child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')))
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`regent ${args[0]} exited with ${code} before listening: ${stderr.join('')}`))
    })
  })
}
