/**
 * Starts a real service on 127.0.0.1 (port 0) over a fresh database for a test, and offers a
 * small JSON client for it. PostgreSQL runs get their own schema, dropped on close.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { parseConfig } from '../../core/config.js'
import { createLogger } from '../../core/log.js'
import { type RunningService, serviceSectionSchema, startService } from '../../service/index.js'
import type { ModuleValidator } from '../../service/policy-validation.js'
import type { Backend, TestDatabase } from '../store/backends.js'

export const ADMIN_TOKEN = 'test-admin-token-0123456789'

export interface TestService {
  service: RunningService
  url: string
  dataDir: string
  /** The database it runs on (a SQLite file path, or PostgreSQL's URL and schema). */
  database: TestDatabase
  /** Every log line the service wrote (JSON text), at debug level and up. */
  logs: string[]
  /** A request with the admin token unless `token` says otherwise (null: none). */
  call(method: string, path: string, options?: CallOptions): Promise<Response>
  /** `call` expecting JSON back. */
  json<T = Record<string, unknown>>(
    method: string,
    path: string,
    options?: CallOptions,
  ): Promise<{ status: number; body: T; headers: Headers }>
  close(): Promise<void>
}

export interface CallOptions {
  token?: string | null
  body?: unknown
  /** Raw body bytes or text, sent as is. */
  raw?: string | Uint8Array
  headers?: Record<string, string>
}

/** Starts a service on `backend` with `serviceYaml` as its `service:` section. */
export async function startTestService(
  backend: Backend,
  serviceYaml = '{}',
  extra: { validateModule?: ModuleValidator } = {},
): Promise<TestService> {
  const database = await backend.create()
  const dataDir = mkdtempSync(join(tmpdir(), 'regent-service-'))
  const config = parseConfig(serviceYaml, serviceSectionSchema)
  const logs: string[] = []
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean))
      done()
    },
  })
  if (backend.name === 'postgres') config.database.url = database.url
  const service = await startService({
    config,
    logger: createLogger({ level: 'debug', destination, pretty: false }),
    addr: '127.0.0.1:0',
    dataDir,
    adminToken: ADMIN_TOKEN,
    databaseSchema: database.schema,
    graceMs: 1000,
    ...extra,
  })
  const call = (method: string, path: string, options: CallOptions = {}) => {
    const headers: Record<string, string> = { ...options.headers }
    const token = options.token === undefined ? ADMIN_TOKEN : options.token
    if (token !== null) headers.Authorization = `Bearer ${token}`
    let body: string | Uint8Array | undefined = options.raw
    if (options.body !== undefined) {
      body = JSON.stringify(options.body)
      headers['Content-Type'] ??= 'application/json'
    }
    return fetch(`${service.url}${path}`, { method, headers, body })
  }
  return {
    service,
    url: service.url,
    dataDir,
    database,
    logs,
    call,
    async json(method, path, options) {
      const res = await call(method, path, options)
      const text = await res.text()
      return {
        status: res.status,
        body: text === '' ? ({} as never) : JSON.parse(text),
        headers: res.headers,
      }
    },
    async close() {
      await service.stop()
      await database.cleanup()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
