import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle } from '../../../core/bundle/index.js'
import { BACKENDS } from '../../store/backends.js'
import { runRegent } from '../../support/run-cli.js'
import { startTestService, type TestService } from '../harness.js'

const TWO_SYSTEMS = `description: two systems, the second one broken
systems:
  - id: first
    config: {name: first, type: custom}
    policies:
      main: {main.rego: "package main\\n\\nallow := true\\n"}
  - id: second
    config: {name: second, type: custom}
    policies:
      main: {main.rego: "package main\\n\\nallow if undefined_function(1)\\n"}
`

const TAKEN_NAME = `systems:
  - id: newcomer
    config: {name: data-filtering, type: custom}
`

const CUSTOM = `description: a user's own blueprint
systems:
  - id: custom-one
    config: {name: custom-one, type: custom, description: from a file}
    policies:
      rules: {r.rego: "package rules\\n\\nlimit := data.limits.max\\n"}
    data:
      limits: {max: 12345678901234567890}
`

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`blueprints on ${backend.name}`, () => {
    let t: TestService
    let dir: string
    const bundleOf = async (id: string) => {
      const response = await t.call('GET', `/v1/bundles/systems/${id}`)
      expect(response.status).toBe(200)
      return new Uint8Array(await response.arrayBuffer())
    }
    const systemCount = async () =>
      (await t.json<{ result: unknown[] }>('GET', '/v1/systems')).body.result.length

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'regent-blueprints-'))
      writeFileSync(join(dir, 'two-systems.yaml'), TWO_SYSTEMS)
      writeFileSync(join(dir, 'taken-name.yaml'), TAKEN_NAME)
      writeFileSync(join(dir, 'custom.yaml'), CUSTOM)
      writeFileSync(join(dir, 'broken.yaml'), 'systems:\n  - id: x\n    config: {name: x}\n')
      writeFileSync(join(dir, 'not-yaml.yaml'), 'systems: [\n')
      writeFileSync(join(dir, 'notes.txt'), 'not a blueprint')
      t = await startTestService(backend, JSON.stringify({ blueprints: { dir } }))
    })
    afterAll(async () => {
      await t?.close()
      rmSync(dir, { recursive: true, force: true })
    })

    it("lists the built-in blueprints and the folder's, and describes one without applying it", async () => {
      const list = await t.json<{ result: string[] }>('GET', '/v1/blueprints')
      expect(list.status).toBe(200)
      expect(list.body.result).toEqual([
        'api-authorization',
        'broken',
        'custom',
        'data-filtering',
        'edge-relay',
        'not-yaml',
        'taken-name',
        'two-systems',
      ])
      const one = await t.json<{ result: Record<string, unknown> }>('GET', '/v1/blueprints/data-filtering')
      expect(one.body.result).toEqual({
        blueprint: 'data-filtering',
        description: expect.stringContaining('data-filtering'),
        resources: [
          { id: 'data-filtering', type: 'system' },
          { id: 'systems/data-filtering/filters', type: 'policy' },
          { id: 'systems/data-filtering/roles', type: 'data' },
        ],
      })
      expect(await systemCount()).toBe(0)
    })

    it('applies the data-filtering blueprint: a system whose bundle holds the filter policy and its roles', async () => {
      const applied = await t.json<{ result: Record<string, unknown> }>(
        'POST',
        '/v1/blueprints/data-filtering',
      )
      expect(applied.status).toBe(200)
      expect(applied.body.result).toEqual({
        blueprint: 'data-filtering',
        resources: [
          { id: 'data-filtering', type: 'system' },
          { id: 'systems/data-filtering/filters', type: 'policy' },
          { id: 'systems/data-filtering/roles', type: 'data' },
        ],
      })
      const system = await t.json<{ result: { name: string; type: string } }>(
        'GET',
        '/v1/systems/data-filtering',
      )
      expect(system.body.result).toMatchObject({ name: 'data-filtering', type: 'data-filtering' })
      const bundle = await readBundle(await bundleOf('data-filtering'))
      expect(bundle.modules.map((m) => m.path)).toEqual(['filters/filters.rego'])
      expect(bundle.modules[0]!.source).toContain('mask_rule: masks')
      expect(bundle.data).toEqual({ roles: { alice: ['admin'], bob: ['reader'], caesar: ['resolver'] } })
    })

    it('is idempotent: applying again creates nothing, answers the same and leaves the bundle as it was', async () => {
      const before = await bundleOf('data-filtering')
      const count = await systemCount()
      const again = await t.json<{ result: { resources: unknown[] } }>(
        'POST',
        '/v1/blueprints/data-filtering',
        {
          body: {},
        },
      )
      expect(again.status).toBe(200)
      expect(again.body.result.resources).toHaveLength(3)
      expect(await systemCount()).toBe(count)
      expect(await bundleOf('data-filtering')).toEqual(before)
    })

    it('leaves what a user changed alone when applied again, and restores only what was removed', async () => {
      await t.json('PUT', '/v1/data/systems/data-filtering/roles', { body: { dave: ['admin'] } })
      await t.json('DELETE', '/v1/policies/systems/data-filtering/filters')
      expect((await t.json('POST', '/v1/blueprints/data-filtering')).status).toBe(200)
      const bundle = await readBundle(await bundleOf('data-filtering'))
      expect(bundle.data).toEqual({ roles: { dave: ['admin'] } })
      expect(bundle.modules.map((m) => m.path)).toEqual(['filters/filters.rego'])
    })

    it('applies the api-authorization blueprint, whose own tests pass on the bundle the service builds', async () => {
      expect((await t.json('POST', '/v1/blueprints/api-authorization')).status).toBe(200)
      const work = mkdtempSync(join(tmpdir(), 'regent-blueprint-bundle-'))
      try {
        writeFileSync(join(work, 'bundle.tar.gz'), await bundleOf('api-authorization'))
        const result = await runRegent(['test', '-b', join(work, 'bundle.tar.gz')], { timeoutMs: 60_000 })
        expect(result.stderr).toBe('')
        expect(result.stdout).toMatch(/PASS: 5\/5/)
        expect(result.code).toBe(0)
      } finally {
        rmSync(work, { recursive: true, force: true })
      }
    })

    it('applies the edge-relay blueprint: a system with a decision-log mask and a relay config to start from', async () => {
      expect((await t.json('POST', '/v1/blueprints/edge-relay')).status).toBe(200)
      const bundle = await readBundle(await bundleOf('edge-relay'))
      expect(bundle.modules.map((m) => m.path).sort()).toEqual(['edge/edge.rego', 'system/log/mask.rego'])
      const config = await t.call('GET', '/v1/systems/edge-relay/assets/relay-config')
      expect(config.status).toBe(200)
      expect(await config.text()).toContain('edge-relay')
    })

    it("applies a blueprint from the folder, keeping a data document's large number exactly", async () => {
      const applied = await t.json<{ result: { resources: unknown[] } }>('POST', '/v1/blueprints/custom')
      expect(applied.status).toBe(200)
      const data = await t.call('GET', '/v1/data/systems/custom-one/limits')
      expect(await data.text()).toContain('"max":12345678901234567890')
    })

    it("is atomic: when one system's policy does not compile, no system of the blueprint is created", async () => {
      const count = await systemCount()
      const failed = await t.json<Record<string, unknown>>('POST', '/v1/blueprints/two-systems')
      expect(failed.status).toBe(400)
      expect(Object.keys(failed.body)).toEqual(['Error'])
      expect(failed.body.Error).toMatch(
        /systems\/second\/main\/main\.rego:3:\d+: rego_type_error: undefined function undefined_function/,
      )
      expect(await systemCount()).toBe(count)
      expect((await t.call('GET', '/v1/systems/first')).status).toBe(404)
    })

    it('refuses a system name another system holds with 409, creating nothing', async () => {
      const failed = await t.json<Record<string, unknown>>('POST', '/v1/blueprints/taken-name')
      expect(failed.status).toBe(409)
      expect(failed.body.Error).toMatch(/data-filtering/)
      expect((await t.call('GET', '/v1/systems/newcomer')).status).toBe(404)
    })

    it('answers unknown names, bodies with parameters and broken files with clear errors', async () => {
      const unknown = await t.json<Record<string, unknown>>('POST', '/v1/blueprints/nope')
      expect(unknown).toMatchObject({ status: 404, body: { Error: 'blueprint "nope" not found' } })
      const withBody = await t.json<Record<string, unknown>>('POST', '/v1/blueprints/edge-relay', {
        body: { system: 'x' },
      })
      expect(withBody.status).toBe(400)
      expect(withBody.body.Error).toMatch(/must be empty or \{\}/)
      const broken = await t.json<Record<string, unknown>>('POST', '/v1/blueprints/broken')
      expect(broken.status).toBe(500)
      expect(broken.body.Error).toMatch(/broken\.yaml: systems\.0\.config\.type/)
      const notYaml = await t.json<Record<string, unknown>>('GET', '/v1/blueprints/not-yaml')
      expect(notYaml.status).toBe(500)
      expect(notYaml.body.Error).toMatch(/not-yaml\.yaml: .* at line \d+, column \d+/)
      const traversal = await t.json('POST', '/v1/blueprints/..%2Fetc')
      expect(traversal.status).toBe(404)
    })

    it('refuses callers without a token', async () => {
      expect((await t.call('GET', '/v1/blueprints', { token: null })).status).toBe(401)
      expect((await t.call('POST', '/v1/blueprints/edge-relay', { token: null })).status).toBe(401)
    })
  })
}
