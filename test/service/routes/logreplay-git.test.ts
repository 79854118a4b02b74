/**
 * POST /v1/logreplay with a candidate from a git commit: a system built from a real bare
 * repository (file://) follows `main`; a branch holds a changed rule. Replaying against that
 * branch (by SHA or by name) reports exactly the decisions the change flips, checked against
 * evaluating each logged input directly over each commit's files (sandboxed data evaluation);
 * replaying without `commit` uses the followed commit and flips nothing. Commits that do not
 * exist, references git would refuse and a `commit` for a system not built from git are refused.
 * Data evaluation of the same system reads the followed commit's modules with the stored data.
 */
import { rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../../store/backends.js'
import { makeOrigin, type Origin, tempDir } from '../git/fixtures.js'
import { startTestService, type TestService } from '../harness.js'

const POLICY = 'package authz\n\nallow if input.user in data.admins\n\nallow if input.level >= 5\n'
const CANDIDATE = 'package authz\n\nallow if input.user in data.admins\n\nallow if input.level >= 7\n'
const ADMINS = ['alice']

interface ReplayResult {
  system: string
  commit?: string
  replayed: number
  changed: number
  errors: number
  changes: Array<{ decision_id: string; before?: unknown; after?: unknown }>
}

describe('decision replay against a git commit', () => {
  let t: TestService
  let root: string
  let origin: Origin
  let followed: string
  let candidate: string
  let id: string
  const inputs = [
    { user: 'alice', level: 1 },
    { user: 'bob', level: 5 },
    { user: 'carol', level: 6 },
    { user: 'dan', level: 7 },
    { user: 'erin', level: 2 },
  ]

  /** The answer of `modules` over the admins for `input`, evaluated directly (nothing stored). */
  const directly = async (modules: Record<string, string>, input: unknown) =>
    (
      await t.json<{ result?: unknown }>('POST', `/v1/data/systems/${id}/authz/allow`, {
        body: { input, sandbox: true, rego_modules: modules, data: { admins: ADMINS } },
      })
    ).body.result
  const replay = (body: Record<string, unknown>) =>
    t.json<{ result: ReplayResult; message?: string; code?: string }>('POST', '/v1/logreplay', {
      body: { system: id, ...body },
    })

  beforeAll(async () => {
    root = tempDir()
    origin = makeOrigin(root, { 'policies/authz/authz.rego': POLICY, 'README.md': 'not in the bundle' })
    followed = origin.push({})
    // The candidate lives on a branch; the system keeps following main.
    candidate = origin.push({ 'policies/authz/authz.rego': CANDIDATE }, [], 'candidate')
    t = await startTestService(BACKENDS[0]!, '{git: {poll_interval: "0"}}')
    const created = await t.json<{ result: { id: string; status: string } }>('POST', '/v1/systems', {
      body: {
        name: 'from-git',
        type: 'custom',
        source_control: {
          origin: {
            url: `file://${origin.bare}`,
            reference: 'main',
            commit: '',
            path: 'policies',
            credentials: '',
          },
        },
      },
    })
    expect(created.status).toBe(200)
    id = created.body.result.id
    // Data pushed to a git-built system joins its bundle; the replay must see it too.
    expect((await t.json('PUT', `/v1/data/systems/${id}/admins`, { body: ADMINS })).status).toBe(200)
    const events = []
    for (const [i, input] of inputs.entries()) {
      const result = await directly({ 'authz.rego': POLICY }, input)
      events.push({
        decision_id: `d${i}`,
        path: 'authz/allow',
        input,
        ...(result !== undefined ? { result } : {}),
        labels: { 'system-id': id },
        timestamp: new Date(Date.now() - (10 - i) * 1000).toISOString(),
      })
    }
    expect((await t.call('POST', '/v1/logs', { body: events })).status).toBeLessThan(300)
  })
  afterAll(async () => {
    await t?.close()
    if (root) rmSync(root, { recursive: true, force: true })
  })

  it('reports exactly the decisions the branch commit flips, by SHA and by branch name', async () => {
    const expected: string[] = []
    for (const [i, input] of inputs.entries()) {
      const before = await directly({ 'authz.rego': POLICY }, input)
      const after = await directly({ 'authz.rego': CANDIDATE }, input)
      if (JSON.stringify(before) !== JSON.stringify(after)) expected.push(`d${i}`)
    }
    expect(expected).toEqual(['d1', 'd2'])
    for (const commit of [candidate, 'candidate', 'refs/heads/candidate']) {
      const { status, body } = await replay({ commit })
      expect(status, JSON.stringify(body)).toBe(200)
      expect(body.result).toMatchObject({ system: id, commit: candidate, replayed: 5, changed: 2, errors: 0 })
      expect(body.result.changes.map((c) => c.decision_id).sort()).toEqual(expected)
    }
  })

  it('replays the followed commit when no commit is given, and layers modules over a commit', async () => {
    const { status, body } = await replay({})
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.result).toMatchObject({ commit: followed, replayed: 5, changed: 0, changes: [] })
    // Modules are named by their repository path, so a request module replaces the commit's file.
    const layered = await replay({ commit: candidate, modules: { 'policies/authz/authz.rego': POLICY } })
    expect(layered.body.result).toMatchObject({ commit: candidate, changed: 0 })
    const deleted = await replay({ commit: candidate, delete_modules: ['policies/authz/authz.rego'] })
    // Without the rule every decision that was allowed becomes undefined.
    expect(deleted.body.result.changes.map((c) => c.decision_id).sort()).toEqual(['d0', 'd1', 'd2', 'd3'])
  })

  it('evaluates data requests of the git-built system over its followed commit and stored data', async () => {
    for (const input of inputs) {
      const answer = await t.json<{ result?: unknown }>('POST', `/v1/data/systems/${id}/authz/allow`, {
        body: { input },
      })
      expect(answer.status).toBe(200)
      expect(answer.body.result, JSON.stringify(input)).toEqual(
        await directly({ 'authz.rego': POLICY }, input),
      )
    }
    // The document read of a rule works too (the module is the commit's, not a stored one).
    const read = await t.json<{ result?: unknown }>('GET', `/v1/data/systems/${id}/admins`)
    expect(read.body.result).toEqual(ADMINS)
  })

  it('refuses unknown commits, references git would refuse, and a commit for a system not built from git', async () => {
    const unknown = await replay({ commit: 'f'.repeat(40) })
    expect(unknown.status).toBe(404)
    expect(unknown.body.message).toMatch(/^commit: /)
    const branch = await replay({ commit: 'no-such-branch' })
    expect(branch.status).toBe(404)
    const option = await replay({ commit: '--upload-pack=touch /tmp/x' })
    expect(option.status).toBe(400)
    expect(option.body.message).toMatch(/^commit: /)
    const expression = await replay({ commit: 'main~1' })
    expect(expression.status).toBe(400)
    const empty = await replay({ commit: '' })
    expect(empty.status).toBe(400)

    const plain = await t.json<{ result: { id: string } }>('POST', '/v1/systems', {
      body: { name: 'stored', type: 'custom' },
    })
    const stored = await t.json<{ message?: string }>('POST', '/v1/logreplay', {
      body: { system: plain.body.result.id, commit: followed },
    })
    expect(stored.status).toBe(400)
    expect(stored.body.message).toMatch(/^commit: .*not built from git/)
  })
})
