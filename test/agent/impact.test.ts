/**
 * Live impact analysis in `regent run -s` (`POST /v0/impact`), in process: sampled decisions are
 * evaluated against the candidate after the answer, differences stream back as JSON lines, the
 * served answers never change, and bad parameters or bundles are refused with a 400 that says why.
 */
import { describe, expect, it } from 'vitest'
import { createRunApp } from '../../agent/app.js'
import { ServerState } from '../../agent/state.js'
import { bundleFromParts, writeBundle } from '../../core/bundle/index.js'
import { createLogger } from '../../core/log.js'
import { parseModule } from '../../core/rego/index.js'
import { ObjectValue } from '../../core/rego/values/index.js'

const PRIMARY = 'package authz\n\nallow if input.user == "alice"\n'
const CANDIDATE = 'package authz\n\nallow if input.user in {"alice", "bob"}\n'

function app() {
  const state = new ServerState(
    {
      policies: [{ id: 'p.rego', raw: PRIMARY, module: parseModule(PRIMARY, { file: 'p.rego' }) }],
      data: new ObjectValue(),
      bundles: [],
    },
    { regoVersion: 'v1' },
  )
  return createRunApp({ state, logger: createLogger({ level: 'silent' }), version: 'test' })
}

const decide = async (server: ReturnType<typeof app>, user: string) => {
  const res = await server.request('/v1/data/authz/allow', {
    method: 'POST',
    body: JSON.stringify({ input: { user } }),
  })
  return res.json()
}

describe('POST /v0/impact', () => {
  it('streams each difference between the served decision and the candidate, answers unchanged', async () => {
    const server = app()
    const candidate = await writeBundle(bundleFromParts({ modules: { 'p.rego': CANDIDATE } }))
    const recording = await server.request('/v0/impact?duration=1500ms&rate=1&equals=false', {
      method: 'POST',
      body: candidate,
    })
    expect(recording.status).toBe(200)
    expect(recording.headers.get('content-type')).toBe('application/x-ndjson')
    const text = recording.text()
    const answers = []
    for (const user of ['alice', 'bob', 'carol', 'bob']) answers.push(await decide(server, user))
    // The served decisions are those of the primary policy, whatever the candidate says.
    expect(answers).toEqual([{ result: true }, {}, {}, {}])
    const rows = (await text)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(rows).toHaveLength(2) // bob twice; alice and carol agree
    for (const row of rows) {
      expect(row).toMatchObject({ path: 'authz/allow', input: { user: 'bob' }, value_b: true })
      expect(row.value_a).toBeUndefined()
      expect(row.eval_ns_a).toBeGreaterThan(0)
      expect(row.eval_ns_b).toBeGreaterThan(0)
      expect(Object.keys(row)).toEqual([
        'node_id',
        'req_id',
        'decision_id',
        'value_b',
        'input',
        'path',
        'eval_ns_a',
        'eval_ns_b',
      ])
    }
    expect(rows.map((r) => r.req_id)).toEqual([1, 2])
  })

  it('samples nothing at rate 0, and everything with equals', async () => {
    const server = app()
    const candidate = await writeBundle(bundleFromParts({ modules: { 'p.rego': CANDIDATE } }))
    const none = server.request('/v0/impact?duration=800ms&rate=0', { method: 'POST', body: candidate })
    const all = server.request('/v0/impact?duration=800ms&rate=1&equals=true', {
      method: 'POST',
      body: candidate,
    })
    const [noneRes, allRes] = await Promise.all([none, all])
    for (const user of ['alice', 'carol']) await decide(server, user)
    expect((await noneRes.text()).trim()).toBe('')
    const rows = (await allRes.text()).trim().split('\n')
    expect(rows).toHaveLength(2)
  })

  it('refuses bad parameters and bundles with 400 naming the problem', async () => {
    const server = app()
    const candidate = await writeBundle(bundleFromParts({ modules: { 'p.rego': CANDIDATE } }))
    const broken = await writeBundle(
      bundleFromParts({ modules: { 'p.rego': 'package authz\n\nallow if {' } }),
    )
    const cases: Array<[string, Uint8Array, RegExp]> = [
      ['duration=abc', candidate, /duration "abc" is not a duration/],
      ['duration=48h', candidate, /at most 24h/],
      ['rate=2', candidate, /rate must be a number from 0 to 1/],
      ['rate=', candidate, /rate must be/],
      ['', new Uint8Array(0), /must hold the candidate bundle/],
      ['', new TextEncoder().encode('not a bundle'), /candidate bundle: .*gzip/],
      ['', broken, /candidate bundle/],
    ]
    for (const [query, body, message] of cases) {
      const res = await server.request(`/v0/impact?${query}`, { method: 'POST', body })
      expect(res.status, query).toBe(400)
      const error = (await res.json()) as { code: string; message: string }
      expect(error.message).toMatch(message)
      expect(error.message).not.toContain('regent-impact-') // the temp file stays private
    }
  })
})
