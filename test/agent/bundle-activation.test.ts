/**
 * Activation of downloaded bundles in the agent (agent/plugins/bundles.ts): a new revision
 * replaces the bundle's policies and data under its roots, what the server holds outside them
 * (local files, API writes) stays, a bundle that does not compile leaves the previous one active,
 * and a bundle dropped from the configuration (discovery) is deactivated.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AgentBundles } from '../../agent/plugins/bundles.js'
import { createAgentPluginMetrics } from '../../agent/plugins/metrics.js'
import { ServerState } from '../../agent/state.js'
import { bundleFromParts, writeBundle } from '../../core/bundle/index.js'
import { fromJS, type ObjectValue } from '../../core/rego/values/index.js'
import type { Target } from '../../plugins/bundle/targets.js'
import { serviceSchema } from '../../plugins/config.js'
import { ServiceClient } from '../../plugins/rest/service-client.js'
import { eventually } from '../relay/helpers.js'

const logger = pino({ level: 'silent' })

describe('agent bundle activation', () => {
  const dir = mkdtempSync(join(tmpdir(), 'regent-agent-activation-'))
  let server: Server
  let current: { etag: string; bytes: Uint8Array }
  let client: ServiceClient

  const publish = async (
    revision: string,
    modules: Record<string, string>,
    data: Record<string, unknown>,
  ) => {
    const bytes = await writeBundle(
      bundleFromParts({ modules, data, manifest: { revision, roots: ['app'] } }),
    )
    current = { etag: `"${revision}"`, bytes }
  }

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.headers['if-none-match'] === current.etag) return void res.writeHead(304).end()
      res.writeHead(200, { ETag: current.etag, 'Content-Type': 'application/gzip' }).end(current.bytes)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    client = new ServiceClient('up', serviceSchema.parse({ url }))
  })
  afterAll(async () => {
    await client.close()
    await new Promise((resolve) => server.close(resolve))
    rmSync(dir, { recursive: true, force: true })
  })

  it('replaces the bundle on a new revision, keeps the rest, refuses a bundle that does not compile', async () => {
    await publish('r1', { 'app/a.rego': 'package app\n\nx := data.app.n\n' }, { app: { n: 1 } })
    const state = new ServerState(
      { policies: [], data: fromJS({ local: { kept: true } }) as ObjectValue, bundles: [] },
      { regoVersion: 'v1' },
    )
    const bundles = new AgentBundles({
      clients: new Map([['up', client]]),
      state,
      persistenceDir: join(dir, 'persist'),
      metrics: createAgentPluginMetrics(),
      logger,
    })
    const target: Target = {
      kind: 'bundle',
      name: 'app',
      service: 'up',
      resource: 'bundles/app',
      minDelaySeconds: 0,
      maxDelaySeconds: 1,
      sizeLimitBytes: 1 << 20,
      required: true,
    }
    const value = async (query: string) => {
      const run = await state.policy.prepare(`v = ${query}`).eval({})
      return run.results[0]?.bindings.get('v')
    }
    await bundles.setTargets([target], new Set())
    bundles.start()
    try {
      await eventually(() => state.bundles.some((b) => b.revision === 'r1'), 10_000, 'r1 active')
      expect(await value('data.app.x')).toEqual(fromJS(1))
      state.putData(['api'], fromJS({ written: 1 }), false)

      await publish('r2', { 'app/b.rego': 'package app\n\ny := data.app.m\n' }, { app: { m: 2 } })
      await eventually(() => state.bundles.some((b) => b.revision === 'r2'), 10_000, 'r2 active')
      expect(await value('data.app.y')).toEqual(fromJS(2))
      expect(await value('data.app.x')).toBeUndefined()
      expect(await value('data.app.n')).toBeUndefined()
      expect(await value('data.local.kept')).toEqual(fromJS(true))
      expect(await value('data.api.written')).toEqual(fromJS(1))
      expect(state.listPolicies().map((p) => p.id)).toEqual(['app/app/b.rego'])

      await publish('r3', { 'app/c.rego': 'package app\n\nz := undefined_function(1)\n' }, { app: {} })
      await eventually(() => bundles.activations.get('app')?.error !== undefined, 10_000, 'r3 refused')
      expect(state.bundles.map((b) => b.revision)).toEqual(['r2'])
      expect(await value('data.app.y')).toEqual(fromJS(2))

      await bundles.setTargets([], new Set())
      expect(state.bundles).toEqual([])
      expect(state.listPolicies()).toEqual([])
      expect(await value('data.app')).toBeUndefined()
      expect(await value('data.api.written')).toEqual(fromJS(1))
    } finally {
      await bundles.stop()
    }
  }, 30_000)
})
