/**
 * POST /v1/logreplay over a real service: decisions logged for a system are replayed against a
 * changed rule, and exactly the decisions whose answer the change flips are reported, checked
 * against evaluating each logged input directly through the data API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'

const POLICY = 'package authz\n\nallow if input.user in data.admins\n\nallow if input.level >= 5\n'
const CANDIDATE = 'package authz\n\nallow if input.user in data.admins\n\nallow if input.level >= 7\n'

describe('decision replay', () => {
  let t: TestService
  let id: string
  const inputs = [
    { user: 'alice', level: 1 },
    { user: 'bob', level: 5 },
    { user: 'carol', level: 6 },
    { user: 'dan', level: 7 },
    { user: 'erin', level: 2 },
  ]

  beforeAll(async () => {
    t = await startTestService(BACKENDS[0]!)
    id = (await t.json<{ result: { id: string } }>('POST', '/v1/systems', { body: { name: 's', type: 't' } }))
      .body.result.id
    expect(
      (
        await t.json('PUT', `/v1/policies/systems/${id}/rules`, {
          body: { modules: { 'authz.rego': POLICY } },
        })
      ).status,
    ).toBe(200)
    expect((await t.json('PUT', `/v1/data/systems/${id}/admins`, { body: ['alice'] })).status).toBe(200)
    const events = []
    for (const [i, input] of inputs.entries()) {
      // What the current policy answered, as an agent would have logged it.
      const answer = await t.json<{ result?: unknown }>('POST', `/v1/data/systems/${id}/authz/allow`, {
        body: { input },
      })
      events.push({
        decision_id: `d${i}`,
        path: 'authz/allow',
        input,
        ...('result' in answer.body ? { result: answer.body.result } : {}),
        labels: { 'system-id': id },
        timestamp: new Date(Date.now() - (10 - i) * 1000).toISOString(),
        nd_builtin_cache: { 'time.now_ns': { '[]': 1 } },
      })
    }
    events.push({
      decision_id: 'q',
      query: 'data.authz.allow',
      labels: { 'system-id': id },
      timestamp: new Date().toISOString(),
    })
    const logged = await t.call('POST', '/v1/logs', { body: events })
    expect(logged.status).toBeLessThan(300)
  })
  afterAll(async () => t?.close())

  it('reports exactly the decisions the candidate flips, as direct evaluation says', async () => {
    const { status, body } = await t.json<{ result: Record<string, unknown> }>('POST', '/v1/logreplay', {
      body: { system: id, modules: { [`systems/${id}/rules/authz.rego`]: CANDIDATE } },
    })
    expect(status, JSON.stringify(body)).toBe(200)
    const expected: string[] = []
    for (const [i, input] of inputs.entries()) {
      const before = await t.json<{ result?: unknown }>('POST', `/v1/data/systems/${id}/authz/allow`, {
        body: { input },
      })
      const after = await t.json<{ result?: unknown }>('POST', `/v1/data/systems/${id}/authz/allow`, {
        body: { input, rego_modules: { [`systems/${id}/rules/authz.rego`]: CANDIDATE } },
      })
      if (JSON.stringify(before.body.result) !== JSON.stringify(after.body.result)) expected.push(`d${i}`)
    }
    expect(expected).toEqual(['d1', 'd2']) // levels 5 and 6 no longer pass
    const result = body.result
    expect(result).toMatchObject({
      system: id,
      replayed: 5,
      changed: 2,
      errors: 0,
      skipped: 1,
      incomplete: false,
    })
    expect(result.by_path).toEqual({ 'authz/allow': { replayed: 5, changed: 2 } })
    const changes = result.changes as Array<{ decision_id: string; before: unknown; after: unknown }>
    expect(changes.map((c) => c.decision_id).sort()).toEqual(expected)
    for (const change of changes) expect(change).toMatchObject({ before: true, changed: true })
    for (const change of changes) expect(change.after).toBeUndefined()
  })

  it('replaying the stored modules unchanged flips nothing', async () => {
    const { body } = await t.json<{ result: Record<string, unknown> }>('POST', '/v1/logreplay', {
      body: { system: id },
    })
    expect(body.result).toMatchObject({ replayed: 5, changed: 0, changes: [] })
  })

  it('refuses bad requests naming the field, candidate modules that do not parse, and unknown systems', async () => {
    const limit = await t.json('POST', '/v1/logreplay', { body: { system: id, limit: 0 } })
    expect(limit.status).toBe(400)
    expect(limit.body.message).toMatch(/limit/)
    const parse = await t.json('POST', '/v1/logreplay', {
      body: { system: id, modules: { 'x.rego': 'package x\nallow if {' } },
    })
    expect(parse.status).toBe(400)
    expect(parse.body.message).toMatch(/^rego_modules: x\.rego:\d+:\d+: rego_parse_error/)
    expect((await t.json('POST', '/v1/logreplay', { body: { system: 'nope' } })).status).toBe(404)
  })

  it('replays one decision when decision_id names it', async () => {
    const candidate = { [`systems/${id}/rules/authz.rego`]: CANDIDATE }
    const flipped = await t.json<{ result: Record<string, unknown> }>('POST', '/v1/logreplay', {
      body: { system: id, decision_id: 'd1', modules: candidate },
    })
    expect(flipped.status).toBe(200)
    expect(flipped.body.result).toMatchObject({ replayed: 1, changed: 1, skipped: 0 })
    expect((flipped.body.result.changes as Array<{ decision_id: string }>)[0]!.decision_id).toBe('d1')
    const kept = await t.json<{ result: Record<string, unknown> }>('POST', '/v1/logreplay', {
      body: { system: id, decision_id: 'd0', modules: candidate },
    })
    expect(kept.body.result).toMatchObject({ replayed: 1, changed: 0, changes: [] })
    const unknown = await t.json<{ result: Record<string, unknown> }>('POST', '/v1/logreplay', {
      body: { system: id, decision_id: 'no-such-decision' },
    })
    expect(unknown.body.result).toMatchObject({ replayed: 0, skipped: 0 })
  })

  it('is refused to a workspace viewer, who may read the decisions (decisions.replay)', async () => {
    const viewer = (await t.json('PUT', '/v1/tokens/replay-viewer', { body: {} })).body.result as string
    const bound = await t.json('POST', '/v2/authz/rolebindings', {
      body: {
        resource_filter: { kind: 'workspace', id: '' },
        role_id: 'WorkspaceViewer',
        subjects: [{ kind: 'token', id: 'replay-viewer' }],
      },
    })
    expect(bound.status).toBe(200)
    expect((await t.json('GET', '/v1/decisions?limit=1', { token: viewer })).status).toBe(200)
    const refused = await t.json('POST', '/v1/logreplay', { body: { system: id }, token: viewer })
    expect(refused.status).toBe(403)
  })
})
