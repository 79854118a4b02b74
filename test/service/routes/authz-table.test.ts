/**
 * The route × role test: every row of the route table, for every built-in role (bound on the
 * workspace, on the "own" system for system roles, on the "own" library for library roles), an
 * agent token and a token without bindings, against the own system or library, another one and
 * the workspace. A request the table
 * allows must not answer 403; one it refuses must. The permission check must answer the same
 * for every request.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { agentCell, tableCell } from '../../../service/authz/access-table.js'
import { BUILTIN_ROLES, OPEN_ACTIONS } from '../../../service/authz/roles.js'
import { ROUTE_TABLE, type RouteRow } from '../../../service/authz/route-table.js'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'

const OWN = 'sys-own'
const OTHER = 'sys-other'
const OWN_LIB = 'lib_own'
const OTHER_LIB = 'lib_other'
type Target = 'workspace' | 'own' | 'other'
/** What a caller's "own" resource is: a system (system roles, everyone else) or a library. */
type OwnKind = 'system' | 'library'

interface Caller {
  name: string
  token: string
  ownKind: OwnKind
  /** Whether the table lets this caller do `row` on `target`. */
  expect(row: RouteRow, target: Target): boolean
}

/** A role binding of the fixture on each target, for the rows whose resource is a binding. */
const FIXTURE_BINDING: Record<OwnKind, Record<Target, string>> = {
  system: { own: 'fx-own', other: 'fx-other', workspace: 'fx-ws' },
  library: { own: 'fx-lib-own', other: 'fx-lib-other', workspace: 'fx-ws' },
}
const FIXTURE_FILTER: Record<OwnKind, Record<Target, { kind: string; id: string }>> = {
  system: {
    own: { kind: 'system', id: OWN },
    other: { kind: 'system', id: OTHER },
    workspace: { kind: 'workspace', id: '' },
  },
  library: {
    own: { kind: 'library', id: OWN_LIB },
    other: { kind: 'library', id: OTHER_LIB },
    workspace: { kind: 'workspace', id: '' },
  },
}
const LIBRARY_OF: Record<string, string> = { [OWN_LIB]: OWN_LIB, [OTHER_LIB]: OTHER_LIB }
const TARGETS: Target[] = ['own', 'other', 'workspace']

/** Concrete requests for a row: one per target its resource can take (with the body it sends). */
function requestsFor(
  row: RouteRow,
  ownKind: OwnKind,
): Array<{ target: Target; path: string; body?: unknown }> {
  const fill = (system: string) =>
    row.pattern
      .replace('{system}', system)
      .replace('{library}', LIBRARY_OF[system] ?? 'x')
      .replace('{assettype}', 'opa-config')
      .replace('{resourcetype}', 'workspace')
      .replace('{resource}', 'ws')
      .replace(/\{\w+\.\.\.\}/g, 'authz-test/x')
      .replace(/\{\w+\}/g, 'x')
  if (row.resource === 'path')
    return [
      { target: 'own', path: fill(OWN) },
      { target: 'other', path: fill(OTHER) },
    ]
  if (row.resource === 'library')
    return [
      { target: 'own', path: fill(OWN_LIB).replace('{rolebinding}', 'x') },
      { target: 'other', path: fill(OTHER_LIB).replace('{rolebinding}', 'x') },
    ]
  if (row.resource === 'binding' && row.pattern.includes('{rolebinding}'))
    return TARGETS.map((target) => ({
      target,
      path: row.pattern.replace('{rolebinding}', FIXTURE_BINDING[ownKind][target]),
    }))
  // The collection's POST: the body's resource_filter is the resource (no role_id: a caller let
  // through is answered 400, which is not a refusal, and nothing is created).
  if (row.resource === 'binding')
    return TARGETS.map((target) => ({
      target,
      path: row.pattern,
      body: { resource_filter: FIXTURE_FILTER[ownKind][target], subjects: [] },
    }))
  if (row.resource === 'query')
    return [
      { target: 'own', path: `${row.pattern}?system=${OWN}` },
      { target: 'other', path: `${row.pattern}?system=${OTHER}` },
      { target: 'workspace', path: row.pattern },
    ]
  return [{ target: 'workspace', path: fill(OWN) }]
}

const verdict = (cell: 'yes' | 'own' | 'no', target: Target) =>
  cell === 'yes' || (cell === 'own' && target === 'own')

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`route × role table on ${backend.name}`, () => {
    let t: TestService
    const callers: Caller[] = []

    async function createOwnSystem(): Promise<void> {
      const res = await t.json('PUT', `/v1/systems/${OWN}`, {
        body: { name: OWN, type: 'custom' },
        headers: { 'If-None-Match': '*' },
      })
      expect(res.status).toBe(200)
      for (const role of BUILTIN_ROLES.filter((r) => r.resource_kind === 'system')) {
        const bound = await t.json('POST', '/v2/authz/rolebindings', {
          body: {
            resource_filter: { kind: 'system', id: OWN },
            role_id: role.id,
            subjects: [{ kind: 'token', id: `t-${role.id}` }],
          },
        })
        expect(bound.status).toBe(200)
      }
      await createFixtureBinding('own')
    }

    /** A library with one module; `own` also gets the library roles' bindings and fixture. */
    async function createLibrary(target: 'own' | 'other'): Promise<void> {
      const id = target === 'own' ? OWN_LIB : OTHER_LIB
      const res = await t.json('PUT', `/v1/libraries/${id}`, {
        body: { modules: { 'a.rego': `package libraries.${id}\n\nx := 1\n` } },
      })
      expect(res.status).toBe(200)
      if (target === 'own')
        for (const role of BUILTIN_ROLES.filter((r) => r.resource_kind === 'library')) {
          const bound = await t.json('POST', '/v2/authz/rolebindings', {
            body: {
              resource_filter: { kind: 'library', id },
              role_id: role.id,
              subjects: [{ kind: 'token', id: `t-${role.id}` }],
            },
          })
          expect(bound.status).toBe(200)
        }
      await createFixtureBinding(target, 'library')
    }

    /** The fixture binding on `target` (a viewer role, for a user nobody is). */
    async function createFixtureBinding(target: Target, kind: OwnKind = 'system'): Promise<void> {
      const viewer = { system: 'SystemViewer', library: 'LibraryViewer' }[kind]
      const bound = await t.json('POST', '/v2/authz/rolebindings', {
        body: {
          id: FIXTURE_BINDING[kind][target],
          resource_filter: FIXTURE_FILTER[kind][target],
          role_id: target === 'workspace' ? 'WorkspaceViewer' : viewer,
          subjects: [{ kind: 'user', id: 'fixture-user' }],
        },
      })
      expect(bound.status).toBe(200)
    }

    async function createOtherSystem(): Promise<void> {
      const other = await t.json('PUT', `/v1/systems/${OTHER}`, {
        body: { name: OTHER, type: 'custom' },
        headers: { 'If-None-Match': '*' },
      })
      expect(other.status).toBe(200)
      await createFixtureBinding('other')
    }

    beforeAll(async () => {
      t = await startTestService(backend)
      await createOtherSystem()
      for (const role of BUILTIN_ROLES) {
        const id = `t-${role.id}`
        const created = await t.json('PUT', `/v1/tokens/${id}`, { body: { description: role.id } })
        expect(created.status).toBe(200)
        callers.push({
          name: role.id,
          token: created.body.result as string,
          ownKind: role.resource_kind === 'library' ? 'library' : 'system',
          expect: (row, target) => verdict(tableCell(role, row), target),
        })
        if (role.resource_kind === 'workspace') {
          const bound = await t.json('POST', '/v2/authz/rolebindings', {
            body: {
              resource_filter: { kind: 'workspace', id: '' },
              role_id: role.id,
              subjects: [{ kind: 'token', id }],
            },
          })
          expect(bound.status).toBe(200)
        }
      }
      await createOwnSystem()
      await createLibrary('own')
      await createLibrary('other')
      await createFixtureBinding('workspace')
      const none = await t.json('PUT', '/v1/tokens/t-none', { body: {} })
      callers.push({
        name: 'no binding',
        token: none.body.result as string,
        ownKind: 'system',
        expect: (row) =>
          (OPEN_ACTIONS as readonly string[]).includes(row.action) || row.authentication !== undefined,
      })
      const opa = parseYaml(await (await t.call('GET', `/v1/systems/${OWN}/assets/opa-config`)).text())
      callers.push({
        name: 'agent token',
        token: opa.services[0].credentials.bearer.token as string,
        ownKind: 'system',
        // Agent reports (resource `caller`) are about the agent's own system.
        expect: (row, target) => verdict(agentCell(row), row.resource === 'caller' ? 'own' : target),
      })
    }, 60_000)
    afterAll(async () => t?.close())

    it('allows exactly what the table allows, and the permission check agrees', async () => {
      const mismatches: string[] = []
      let checked = 0
      for (const caller of callers) {
        const asked: Array<{ method: string; path: string; body: unknown; allowed: boolean }> = []
        for (const row of ROUTE_TABLE) {
          for (const { target, path, body = {} } of requestsFor(row, caller.ownKind)) {
            const res = await t.call(row.method, path, {
              token: caller.token,
              ...(row.method === 'GET' ? {} : { body }),
            })
            await res.arrayBuffer()
            checked++
            const expected = caller.expect(row, target)
            const allowed = res.status !== 403
            if (allowed !== expected)
              mismatches.push(
                `${caller.name} ${row.method} ${path} (${target}): ${res.status}, table says ${expected}`,
              )
            asked.push({ method: row.method, path, body, allowed })
            // A successful system deletion takes the fixture with it: put it back.
            if (row.method === 'DELETE' && path === `/v1/systems/${OWN}` && res.ok) await createOwnSystem()
            if (row.method === 'DELETE' && path === `/v1/systems/${OTHER}` && res.ok)
              await createOtherSystem()
            if (row.method === 'DELETE' && path === `/v1/libraries/${OWN_LIB}` && res.ok)
              await createLibrary('own')
            if (row.method === 'DELETE' && path === `/v1/libraries/${OTHER_LIB}` && res.ok)
              await createLibrary('other')
            if (row.method === 'DELETE' && row.pattern === '/v2/authz/rolebindings/{rolebinding}' && res.ok)
              await createFixtureBinding(target, caller.ownKind)
          }
        }
        const check = await t.json<{
          result: Array<{ allowed: boolean; eval_error: boolean; path: string }>
        }>('POST', '/v1/authz/evaluation', {
          token: caller.token,
          body: asked.map((a) => ({
            check_option: '',
            operation: a.method,
            action: '',
            path: a.path,
            body: a.body,
          })),
        })
        expect(check.status).toBe(200)
        check.body.result.forEach((r, i) => {
          expect(r.eval_error).toBe(false)
          if (r.allowed !== asked[i]!.allowed)
            mismatches.push(
              `${caller.name} check ${asked[i]!.method} ${r.path}: ${r.allowed}, enforcement ${asked[i]!.allowed}`,
            )
        })
      }
      expect(mismatches).toEqual([])
      expect(checked).toBeGreaterThan(ROUTE_TABLE.length * callers.length)
    }, 240_000)

    it('refuses a route the table does not list to everyone but WorkspaceAdministrator', async () => {
      for (const caller of callers) {
        const res = await t.call('GET', '/v1/no-such-route', { token: caller.token })
        expect(res.status, caller.name).toBe(caller.name === 'WorkspaceAdministrator' ? 404 : 403)
      }
      const body = await t.json('GET', '/v1/no-such-route', {
        token: callers.find((c) => c.name === 'SystemOwner')!.token,
      })
      expect(body.body.message).toMatch(/token t-SystemOwner may not unlisted on the workspace/)
    })
  })
}
