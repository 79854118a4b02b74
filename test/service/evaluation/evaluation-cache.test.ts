/**
 * Data evaluation keeps a system's content (main thread) and its compiled policy (worker) per
 * content version: repeated requests do not reload the store, and every kind of write (policy,
 * data document, a rest datasource's push, a delete, the system deleted) is seen by the very next
 * request. Real service on SQLite.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'

let t: TestService
let id = ''

const POLICY = (role: string) =>
  `package authz\n\nallow if { some u in data.admins; u == input.user; "${role}" == "${role}" }\n\nrole := "${role}"\n\nseen := data.seen\n`

async function evaluate(path: string, body: unknown = {}): Promise<{ status: number; result: unknown }> {
  const res = await t.json<{ result?: unknown; message?: string }>('POST', `/v1/data/systems/${id}/${path}`, {
    body,
  })
  return { status: res.status, result: res.status === 200 ? res.body.result : res.body.message }
}

describe('data evaluation cache', () => {
  beforeAll(async () => {
    t = await startTestService(BACKENDS[0]!)
    id = (await t.json<{ result: { id: string } }>('POST', '/v1/systems', { body: { name: 'c', type: 't' } }))
      .body.result.id
    expect(
      (
        await t.json('PUT', `/v1/policies/systems/${id}/rules`, {
          body: { modules: { 'a.rego': POLICY('v1') } },
        })
      ).status,
    ).toBe(200)
    expect((await t.json('PUT', `/v1/data/systems/${id}/admins`, { body: ['alice'] })).status).toBe(200)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('repeated requests over unchanged content read the store once', async () => {
    expect(await evaluate('authz/allow', { input: { user: 'alice' } })).toEqual({ status: 200, result: true })
    const listPolicies = vi.spyOn(t.service.store.policies, 'listForSystem')
    const listData = vi.spyOn(t.service.store.dataDocuments, 'listForSystem')
    try {
      for (let i = 0; i < 5; i++)
        expect(await evaluate('authz/allow', { input: { user: 'alice' } })).toEqual({
          status: 200,
          result: true,
        })
      expect(listPolicies).not.toHaveBeenCalled()
      expect(listData).not.toHaveBeenCalled()
      // A write: the next request loads the new content once.
      expect((await t.json('PUT', `/v1/data/systems/${id}/admins`, { body: ['alice', 'bob'] })).status).toBe(
        200,
      )
      const before = listData.mock.calls.length
      expect(await evaluate('authz/allow', { input: { user: 'bob' } })).toEqual({ status: 200, result: true })
      expect(await evaluate('authz/allow', { input: { user: 'bob' } })).toEqual({ status: 200, result: true })
      expect(listData.mock.calls.length - before).toBe(1)
    } finally {
      listPolicies.mockRestore()
      listData.mockRestore()
    }
  })

  it('a changed policy is compiled again at the next request', async () => {
    expect(await evaluate('authz/role')).toEqual({ status: 200, result: 'v1' })
    expect(
      (
        await t.json('PUT', `/v1/policies/systems/${id}/rules`, {
          body: { modules: { 'a.rego': POLICY('v2') } },
        })
      ).status,
    ).toBe(200)
    expect(await evaluate('authz/role')).toEqual({ status: 200, result: 'v2' })
    // The same through a rego query (a prepared query of the old policy is not reused).
    expect(
      (
        (await t.json('POST', `/v1/data/systems/${id}`, { body: { rego: 'data.authz.role' } })).body
          .result as never
      )[0],
    ).toMatchObject({ expressions: [{ value: 'v2' }] })
  })

  it('a deleted document and a new one are seen at the next request', async () => {
    expect(await evaluate('authz/seen')).toEqual({ status: 200, result: undefined })
    expect((await t.json('PUT', `/v1/data/systems/${id}/seen`, { body: { n: 1 } })).status).toBe(200)
    expect(await evaluate('authz/seen')).toEqual({ status: 200, result: { n: 1 } })
    expect(
      (
        await t.json('PATCH', `/v1/data/systems/${id}/seen`, {
          body: [{ op: 'replace', path: '/n', value: 2 }],
        })
      ).status,
    ).toBe(200)
    expect(await evaluate('authz/seen')).toEqual({ status: 200, result: { n: 2 } })
    expect((await t.call('DELETE', `/v1/data/systems/${id}/seen`)).status).toBe(200)
    expect(await evaluate('authz/seen')).toEqual({ status: 200, result: undefined })
  })

  it("a rest datasource's push is seen at the next request", async () => {
    const ds = `systems/${id}/seen`
    expect((await t.json('PUT', `/v1/datasources/${ds}`, { body: { category: 'rest' } })).status).toBe(200)
    expect((await t.json('POST', `/v1/datasources/${ds}`, { body: { pushed: 1 } })).status).toBe(200)
    expect(await evaluate('authz/seen')).toEqual({ status: 200, result: { pushed: 1 } })
    expect((await t.json('POST', `/v1/datasources/${ds}`, { body: { pushed: 2 } })).status).toBe(200)
    expect(await evaluate('authz/seen')).toEqual({ status: 200, result: { pushed: 2 } })
  })

  it('supplied data and modules are evaluated beside the cached content without changing it', async () => {
    expect(await evaluate('authz/allow', { input: { user: 'zed' }, data: { admins: ['zed'] } })).toEqual({
      status: 200,
      result: true,
    })
    expect(await evaluate('authz/allow', { input: { user: 'zed' } })).toEqual({
      status: 200,
      result: undefined,
    })
    expect(
      await evaluate('authz/extra', { rego_modules: { 'x.rego': 'package authz\n\nextra := "supplied"\n' } }),
    ).toEqual({ status: 200, result: 'supplied' })
    expect(await evaluate('authz/extra')).toEqual({ status: 200, result: undefined })
    expect(await evaluate('authz/role')).toEqual({ status: 200, result: 'v2' })
  })

  it('a deleted system answers 404, not its cached content', async () => {
    expect(await evaluate('authz/role')).toEqual({ status: 200, result: 'v2' })
    expect((await t.call('DELETE', `/v1/systems/${id}`)).status).toBeLessThan(300)
    const gone = await evaluate('authz/role')
    expect(gone.status).toBe(404)
  })
})
