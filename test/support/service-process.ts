/**
 * `regent service` as a real child process on 127.0.0.1 (port 0) over a fresh data folder,
 * seeded with a known administrator token, for tests of commands that talk to a service.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REGENT_BIN } from './run-cli.js'

/** A management-API answer: its status and JSON body (`{request_id, result}` or an error). */
export interface ServiceAnswer {
  status: number
  body: { result?: unknown; message?: string; [key: string]: unknown }
}

export interface ServiceProcess {
  url: string
  adminToken: string
  /** A JSON call with the admin token (or `token`). */
  call(method: string, path: string, body?: unknown, token?: string): Promise<ServiceAnswer>
  stop(): Promise<void>
}

export interface ServiceProcessOptions {
  /** YAML of a config file (`log:` and `service:` sections) passed with `-c`. */
  config?: string
  /** Environment variables added to the child's. */
  env?: NodeJS.ProcessEnv
}

/** Starts the service; rejects when it is not ready within 20 s. */
export async function startServiceProcess(options: ServiceProcessOptions = {}): Promise<ServiceProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'regent-service-proc-'))
  const adminToken = `admin-${Math.random().toString(36).slice(2)}-0123456789`
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REGENT_LOG_LEVEL: 'info',
    REGENT_ADMIN_TOKEN: adminToken,
    ...options.env,
  }
  const args = [REGENT_BIN, 'service', '--addr', '127.0.0.1:0', '--data-dir', dataDir]
  if (options.config !== undefined) {
    const configFile = join(dataDir, 'config.yaml')
    writeFileSync(configFile, options.config)
    args.push('-c', configFile)
  }
  const child: ChildProcess = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stderr!.on('data', (d) => {
    err += d
  })
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start: ${out}${err}`)), 20_000)
    child.stdout!.on('data', (d) => {
      out += d
      const match = /"addr":"(http:\/\/[^"]+)"/.exec(out)
      if (match && out.includes('service ready')) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`service exited with ${code}: ${err}`))
    })
  })
  return {
    url,
    adminToken,
    async call(method, path, body, token = adminToken) {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      const text = await res.text()
      return { status: res.status, body: text === '' ? {} : JSON.parse(text) }
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        await exited
      }
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
