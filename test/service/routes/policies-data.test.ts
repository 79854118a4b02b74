import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle } from '../../../core/bundle/index.js'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`policies and data on ${backend.name}`, () => {
    let t: TestService
    let id: string
    const bundle = async () =>
      readBundle(new Uint8Array(await (await t.call('GET', `/v1/bundles/systems/${id}`)).arrayBuffer()))
    beforeAll(async () => {
      t = await startTestService(backend)
      id = (
        await t.json<{ result: { id: string } }>('POST', '/v1/systems', { body: { name: 's', type: 't' } })
      ).body.result.id
    })
    afterAll(async () => t?.close())

    it('stores policies and puts system policies into the bundle, relative to the system', async () => {
      const source = 'package authz\n\nallow if input.user == "alice"\n'
      const put = await t.json('PUT', `/v1/policies/systems/${id}/rules`, {
        body: { modules: { 'authz.rego': source } },
      })
      expect(put.status).toBe(200)
      const got = await t.json<{ result: Record<string, unknown> }>('GET', `/v1/policies/systems/${id}/rules`)
      expect(got.body.result).toMatchObject({ id: `systems/${id}/rules`, modules: { 'authz.rego': source } })
      const b = await bundle()
      expect(b.modules.map((m) => [m.path, m.source])).toEqual([['rules/authz.rego', source]])
      const list = await t.json<{ result: Array<{ id: string }> }>('GET', `/v1/policies?prefix=systems/${id}`)
      expect(list.body.result.map((p) => p.id)).toEqual([`systems/${id}/rules`])
      const other = await t.json('PUT', '/v1/policies/library/common', {
        body: { modules: { 'c.rego': 'package common\n' } },
      })
      expect(other.status).toBe(200)
      expect((await bundle()).modules).toHaveLength(1)
    })

    it('refuses modules that do not parse, bad file names and unknown systems', async () => {
      const parse = await t.json('PUT', `/v1/policies/systems/${id}/bad`, {
        body: { modules: { 'x.rego': 'package x\nallow { true }\n' } },
      })
      expect(parse.status).toBe(400)
      expect(parse.body.message).toMatch(/x\.rego:2:1: rego_parse_error/)
      const name = await t.json('PUT', `/v1/policies/systems/${id}/bad`, {
        body: { modules: { '../x.rego': 'package x\n' } },
      })
      expect(name.status).toBe(400)
      const ext = await t.json('PUT', `/v1/policies/systems/${id}/bad`, {
        body: { modules: { 'x.txt': 'package x\n' } },
      })
      expect(ext.status).toBe(400)
      const noModules = await t.json('PUT', `/v1/policies/systems/${id}/bad`, { body: {} })
      expect(noModules.status).toBe(400)
      expect(noModules.body.message).toMatch(/modules/)
      const unknown = await t.json('PUT', '/v1/policies/systems/nope/p', {
        body: { modules: { 'a.rego': 'package a\n' } },
      })
      expect(unknown.status).toBe(404)
      const dots = await t.json('PUT', '/v1/policies/a/%2E%2E%2Fb', { body: { modules: {} } })
      expect(dots.status).toBe(400)
      const control = await t.json('GET', '/v1/policies/a%01b')
      expect(control.status).toBe(400)
      expect((await t.json('GET', `/v1/policies/systems/${id}/bad`)).status).toBe(404)
    })

    it('refuses a policy that does not compile with the system, with the compiler errors', async () => {
      const served = (await bundle()).manifest.revision
      const path = `/v1/policies/systems/${id}/unsafe`
      const unsafe = await t.json<{ message: string; errors: Array<Record<string, unknown>> }>('PUT', path, {
        body: { modules: { 'u.rego': 'package u\n\nallow if {\n\tx == input.y\n}\n' } },
      })
      expect(unsafe.status).toBe(400)
      expect(unsafe.body.message).toMatch(/u\.rego:4:2: rego_unsafe_var_error: var x is unsafe/)
      expect(unsafe.body.errors[0]).toMatchObject({
        code: 'rego_unsafe_var_error',
        location: { file: `systems/${id}/unsafe/u.rego`, row: 4, col: 2 },
      })
      expect((await t.json('GET', path)).status).toBe(404)
      // A module that calls a function of another of the system's policies compiles with it.
      const caller = { modules: { 'u.rego': 'package u\n\nimport data.helpers\n\nallow if helpers.ok(1)\n' } }
      const calls = await t.json('PUT', path, { body: caller })
      expect(calls.status).toBe(400)
      expect(calls.body.message).toMatch(
        /u\.rego:5:\d+: rego_type_error: undefined function data\.helpers\.ok/,
      )
      expect(
        (
          await t.json('PUT', `/v1/policies/systems/${id}/helpers`, {
            body: { modules: { 'h.rego': 'package helpers\n\nok(x) if x > 0\n' } },
          })
        ).status,
      ).toBe(200)
      expect((await t.json('PUT', path, { body: caller })).status).toBe(200)
      expect((await bundle()).manifest.revision).not.toBe(served)
      const system = await t.json<{ result: Record<string, unknown> }>('GET', `/v1/systems/${id}`)
      expect(system.body.result.status).toBe('Ready')
      await t.json('DELETE', path)
      await t.json('DELETE', `/v1/policies/systems/${id}/helpers`)
    })

    it('stores data documents with ETags and puts system data into the bundle', async () => {
      const put = await t.json('PUT', `/v1/data/systems/${id}/users`, { body: { alice: { admin: true } } })
      expect(put.status).toBe(200)
      const got = await t.json('GET', `/v1/data/systems/${id}/users`)
      expect(got.body.result).toEqual({ alice: { admin: true } })
      const etag = got.headers.get('etag')!
      expect(etag).toMatch(/^".+"$/)
      expect(
        (await t.call('GET', `/v1/data/systems/${id}/users`, { headers: { 'If-None-Match': etag } })).status,
      ).toBe(304)
      expect((await bundle()).data).toEqual({ users: { alice: { admin: true } } })
      const inner = await t.json('GET', `/v1/data/systems/${id}/users/alice/admin`)
      expect(inner.body.result).toBe(true)
      const tree = await t.json('GET', `/v1/data/systems/${id}`)
      expect(tree.body.result).toEqual({ users: { alice: { admin: true } } })
      expect((await t.json('GET', `/v1/data/systems/${id}/nothing`)).status).toBe(404)
    })

    it('patches with JSON Patch, honours If-Match, and deletes', async () => {
      const path = `/v1/data/systems/${id}/users`
      const patched = await t.json('PATCH', path, {
        body: [{ op: 'add', path: '/bob', value: { admin: false } }],
        headers: { 'Content-Type': 'application/json-patch+json' },
      })
      expect(patched.status).toBe(200)
      expect(patched.body.result).toEqual({ alice: { admin: true }, bob: { admin: false } })
      expect((await bundle()).data).toEqual({ users: { alice: { admin: true }, bob: { admin: false } } })
      const failing = await t.json('PATCH', path, { body: [{ op: 'remove', path: '/carol' }] })
      expect(failing.status).toBe(400)
      const notPatch = await t.json('PATCH', path, { body: { op: 'add' } })
      expect(notPatch.status).toBe(400)
      const stale = await t.json('PUT', path, { body: {}, headers: { 'If-Match': '"stale"' } })
      expect(stale.status).toBe(412)
      const etag = (await t.json('GET', path)).headers.get('etag')!
      expect((await t.json('PUT', path, { body: { only: 1 }, headers: { 'If-Match': etag } })).status).toBe(
        200,
      )
      expect((await t.json('PATCH', `/v1/data/systems/${id}/missing`, { body: [] })).status).toBe(404)
      expect((await t.json('DELETE', path)).status).toBe(200)
      expect((await t.json('DELETE', path)).status).toBe(404)
      expect((await bundle()).data).toEqual({})
    })

    it('keeps every digit of numbers a double cannot hold, through PUT, GET, PATCH and the bundle', async () => {
      const path = `/v1/data/systems/${id}/ids`
      const big = '12345678901234567890'
      const json = { 'Content-Type': 'application/json' }
      const raw = `{"n": ${big}, "list": [98765432109876543210, 0.1], "small": 7}`
      expect((await t.call('PUT', path, { raw, headers: json })).status).toBe(200)
      const text = async (p: string) => (await t.call('GET', p)).text()
      expect(await text(path)).toContain(`"result":{"n":${big},"list":[98765432109876543210,0.1],"small":7}`)
      expect(await text(`${path}/n`)).toContain(`"result":${big}`)
      expect(await text(`/v1/data/systems/${id}`)).toContain(`"ids":{"n":${big}`)
      const dataJson = new TextDecoder().decode((await bundle()).dataFiles[0]!.raw)
      expect(dataJson).toContain(big)
      // JSON Patch compares numbers by value and copies them whole.
      const patch = (ops: string) =>
        t.call('PATCH', path, { raw: ops, headers: { 'Content-Type': 'application/json-patch+json' } })
      const passing = await patch(`[{"op": "test", "path": "/n", "value": ${big}},
        {"op": "copy", "from": "/n", "path": "/m"}, {"op": "test", "path": "/small", "value": 7.0}]`)
      expect(passing.status).toBe(200)
      expect(await passing.text()).toContain(`"m":${big}`)
      const failing = await patch('[{"op": "test", "path": "/n", "value": 12345678901234567891}]')
      expect(failing.status).toBe(400)
      // A number is not a container a pointer can step into.
      expect((await patch('[{"op": "add", "path": "/n/value", "value": 1}]')).status).toBe(400)
      expect((await t.json('DELETE', path)).status).toBe(200)
      // YAML bodies too.
      const yaml = { 'Content-Type': 'application/yaml' }
      expect((await t.call('PUT', path, { raw: `n: ${big}\nf: 1.5\n`, headers: yaml })).status).toBe(200)
      expect(await text(path)).toContain(`"result":{"n":${big},"f":1.5}`)
      expect((await t.json('DELETE', path)).status).toBe(200)
    })

    it('refuses malformed bodies with 400 and unknown media types with 415', async () => {
      const bad = await t.json('PUT', '/v1/data/x', {
        raw: '{"a": [1,}',
        headers: { 'Content-Type': 'application/json' },
      })
      expect(bad.status).toBe(400)
      expect(bad.body.message).toMatch(/line 1, column/)
      const empty = await t.json('PUT', '/v1/data/x', { raw: '' })
      expect(empty.status).toBe(400)
      const html = await t.json('PUT', `/v1/policies/systems/${id}/p`, {
        raw: '<html>',
        headers: { 'Content-Type': 'text/html' },
      })
      expect(html.status).toBe(415)
    })

    it('marks the system failed, naming the problem, when data documents conflict', async () => {
      await t.json('PUT', `/v1/data/systems/${id}/a`, { body: 5 })
      await t.json('PUT', `/v1/data/systems/${id}/a/b`, { body: 6 })
      const system = await t.json<{ result: Record<string, unknown> }>('GET', `/v1/systems/${id}`)
      expect(system.body.result.status).toBe('BundleBuildFailed')
      expect(JSON.stringify(system.body.result.errors)).toMatch(/systems\/[^/]+\/a\/b/)
      await t.json('DELETE', `/v1/data/systems/${id}/a/b`)
      expect(
        (await t.json<{ result: Record<string, unknown> }>('GET', `/v1/systems/${id}`)).body.result.status,
      ).toBe('Ready')
    })
  })
}
