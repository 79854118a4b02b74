/**
 * The compile playground (`POST /v1/systems/{id}/compile/{path}`): the answer a relay serving the
 * system would give (the same pipeline run in process over the same modules and data gives the
 * same status and body), candidate modules over the system's, fragment and parse errors as
 * results with their locations, a runaway policy stopped by the evaluation deadline, and the
 * system's data.read required.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { answerCompile } from '../../../compile/answer.js'
import { EngineBackend } from '../../../compile/backend.js'
import { CompileService } from '../../../compile/compile.js'
import { parseModule } from '../../../core/rego/index.js'
import { BACKENDS } from '../../store/backends.js'
import { TICKETS_FILTER, TICKETS_FILTER_STORED } from '../../support/tickets-filter.js'
import { startTestService, type TestService } from '../harness.js'

const SQL = 'application/vnd.opa.sql.postgresql+json'

interface Played {
  status: number
  content_type: string
  body: {
    result?: { query?: unknown }
    code?: string
    errors?: Array<{ code: string; location?: { row: number } }>
  }
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`compile playground on ${backend.name}`, () => {
    let t: TestService
    let viewer: string
    let outsider: string

    beforeAll(async () => {
      t = await startTestService(backend, JSON.stringify({ evaluation: { timeout_ms: 5000 } }))
      expect(
        (
          await t.json('PUT', '/v1/systems/tickets', {
            body: { name: 'tickets', type: 'custom' },
            headers: { 'If-None-Match': '*' },
          })
        ).status,
      ).toBe(200)
      const pushed = await t.json('PUT', '/v1/policies/systems/tickets/filters', {
        body: { modules: { 'filters.rego': TICKETS_FILTER } },
      })
      expect(pushed.status, JSON.stringify(pushed.body)).toBe(200)
      expect(
        (await t.json('PUT', '/v1/data/systems/tickets/settings', { body: { show_public: true } })).status,
      ).toBe(200)
      for (const id of ['viewer', 'outsider']) {
        const made = await t.json<{ result: string }>('PUT', `/v1/tokens/${id}`, {
          body: { description: id },
        })
        if (id === 'viewer') viewer = made.body.result
        else outsider = made.body.result
      }
      await t.json('PUT', '/v1/authz/rolebindings/systems/tickets/viewers', {
        body: { role_name: 'viewer', subjects: ['token:viewer'] },
      })
    })
    afterAll(async () => t?.close())

    const play = async (body: Record<string, unknown>, token?: string) =>
      t.json<{ result: Played }>('POST', '/v1/systems/tickets/compile/filters/include', {
        body,
        ...(token ? { token } : {}),
      })

    it("answers what the relay's pipeline answers over the same content", async () => {
      const request = { input: { user: 'bob' } }
      const res = await play({ accept: SQL, request })
      expect(res.status).toBe(200)
      expect(res.body.result.status).toBe(200)
      expect(res.body.result.content_type).toBe(SQL)
      const direct = await answerCompile(
        new CompileService(
          new EngineBackend({
            modules: new Map([['filters.rego', parseModule(TICKETS_FILTER, { file: 'filters.rego' })]]),
            data: { settings: { show_public: true } },
          }),
        ),
        {
          path: 'filters/include',
          accept: SQL,
          contentType: 'application/json',
          bodyText: JSON.stringify(request),
          metrics: false,
          pretty: false,
        },
      )
      expect(res.body.result.status).toBe(direct.status)
      expect(res.body.result.body).toEqual(JSON.parse(direct.text))
      expect(String(res.body.result.body.result?.query)).toContain("E'bob'")
      expect(String(res.body.result.body.result?.query)).toContain('public')
    })

    it('compiles candidate modules over the system’s, and reports fragment and parse errors as results', async () => {
      const candidate = TICKETS_FILTER.replace('\tdata.settings.show_public\n', '\tfalse\n')
      const changed = await play({
        accept: SQL,
        request: { input: { user: 'bob' } },
        modules: { [TICKETS_FILTER_STORED]: candidate },
      })
      expect(changed.body.result.status).toBe(200)
      expect(String(changed.body.result.body.result?.query)).not.toContain('public')

      const fragment = TICKETS_FILTER.replace(
        'input.tickets.owner == input.user',
        'upper(input.tickets.owner) == input.user',
      )
      const refused = await play({
        accept: SQL,
        request: { input: { user: 'bob' } },
        modules: { [TICKETS_FILTER_STORED]: fragment },
      })
      expect(refused.status).toBe(200)
      expect(refused.body.result.status).toBe(400)
      const error = refused.body.result.body.errors?.[0]
      expect(error?.code).toBe('pe_fragment_error')
      expect(error?.location).toMatchObject({ file: TICKETS_FILTER_STORED, row: 7 })

      const broken = await play({
        accept: SQL,
        modules: { [TICKETS_FILTER_STORED]: 'package filters\ninclude if {\n' },
      })
      expect(broken.body.result.status).toBe(400)
      expect(broken.body.result.body.errors?.[0]?.code).toBe('rego_parse_error')
    })

    it('stops a policy that never ends at the evaluation deadline', async () => {
      const runaway = `package filters
include if {
\tsome i in numbers.range(1, 20000)
\tsome j in numbers.range(1, 20000)
\ti * j == -1
\tinput.tickets.id == i
}
`
      const started = Date.now()
      const res = await play({ accept: SQL, request: {}, modules: { [TICKETS_FILTER_STORED]: runaway } })
      expect(Date.now() - started).toBeLessThan(30_000)
      // Stopped inside the worker (the compile answer carries the evaluation error) or by the pool.
      const stopped = JSON.stringify(res.body)
      expect(stopped).toMatch(/eval_cancel_error|eval_instruction_limit_error/)
      // The service still answers.
      expect((await play({ accept: SQL, request: { input: { user: 'bob' } } })).body.result.status).toBe(200)
    })

    it('requires data.read on the system and a system that exists', async () => {
      expect((await play({ accept: SQL }, viewer)).status).toBe(200)
      expect((await play({ accept: SQL }, outsider)).status).toBe(403)
      const missing = await t.json('POST', '/v1/systems/nope/compile/filters/include', { body: {} })
      expect(missing.status).toBe(404)
      const bad = await play({ accept: SQL, unknown_field: 1 })
      expect(bad.status).toBe(400)
    })
  })
}
