/**
 * A `regent service` for benchmarks: started on 127.0.0.1 on a backend of test/store/backends.ts
 * with an admin token, one `custom` system created, and that system's agent token read from its
 * generated OPA config (what an agent would use). service.bench.ts and service-ingest.bench.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { parseConfig } from '../../core/config.js'
import { createLogger } from '../../core/log.js'
import { type RunningService, serviceSectionSchema, startService } from '../../service/index.js'
import type { Backend } from '../store/backends.js'

export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789'
const logger = createLogger({ level: 'silent' })

export interface BenchService {
  service: RunningService
  systemId: string
  agentToken: string
  /** Where the service's rows are: its SQLite file, or the PostgreSQL URL and schema. */
  database: { url: string; schema?: string }
  cleanup(): Promise<void>
}

/** Starts the service with the service section `extraYaml` on `backend`. */
export async function startBenchService(backend: Backend, extraYaml = '{}'): Promise<BenchService> {
  const database = await backend.create()
  const dataDir = mkdtempSync(join(tmpdir(), 'regent-service-bench-'))
  const config = parseConfig(extraYaml, serviceSectionSchema)
  if (backend.name === 'postgres') config.database.url = database.url
  const service = await startService({
    config,
    logger,
    addr: '127.0.0.1:0',
    dataDir,
    adminToken: BENCH_ADMIN_TOKEN,
    databaseSchema: database.schema,
    graceMs: 500,
  })
  const headers = { Authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'Content-Type': 'application/json' }
  const created = await fetch(`${service.url}/v1/systems`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'bench', type: 'custom' }),
  })
  const systemId = ((await created.json()) as { result: { id: string } }).result.id
  const opa = parseYaml(
    await (await fetch(`${service.url}/v1/systems/${systemId}/assets/opa-config`, { headers })).text(),
  )
  return {
    service,
    systemId,
    agentToken: opa.services[0].credentials.bearer.token as string,
    database: {
      url: backend.name === 'postgres' ? database.url : join(dataDir, 'service.db'),
      schema: database.schema,
    },
    async cleanup() {
      await service.stop()
      await database.cleanup()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
