/**
 * The authorizer on its own: users and claim subjects (a Principal of kind user with claims, as
 * the identity-provider hook builds it), agent tokens, and noticing grant changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Authorizer } from '../../../service/authz/authorizer.js'
import type { Principal } from '../../../service/types.js'
import { type GrantSubject, ServiceStore } from '../../../store/service/index.js'
import { BACKENDS } from '../../store/backends.js'

const actor = { by: 'test', through: 'test' }
const sqlite = BACKENDS.find((b) => b.name === 'sqlite')!

function user(id: string, claims: Record<string, unknown>, provider = 'corp'): Principal {
  return { kind: 'user', id, roles: new Set(), systemId: null, provider, claims }
}

describe('authorizer', () => {
  let store: ServiceStore
  let cleanup: () => Promise<void>
  let authz: Authorizer
  const bind = async (id: string, role: string, kind: string, resource: string, subjects: GrantSubject[]) => {
    await store.grants.put(
      { id, name: id, description: '', role, resourceKind: kind, resourceId: resource, subjects },
      actor,
    )
    authz.changed()
    await authz.refresh()
  }

  beforeAll(async () => {
    const db = await sqlite.create()
    cleanup = db.cleanup
    store = await ServiceStore.open({ url: db.url })
    authz = new Authorizer(store.grants)
  })
  afterAll(async () => {
    await store?.close()
    await cleanup?.()
  })

  it('decides user subjects by id and claim subjects by key and value', async () => {
    await bind('alice-owner', 'SystemOwner', 'system', 's1', [{ kind: 'user', id: 'alice' }])
    await bind('ops-editors', 'SystemEditor', 'system', 's2', [
      { kind: 'claim', provider: 'corp', key: 'groups', value: 'ops' },
    ])
    await bind('any-staff', 'WorkspaceViewer', 'workspace', '', [
      { kind: 'claim', provider: '', key: 'staff', value: '*' },
    ])
    const put = (path: string) => ({ method: 'PUT', path })
    const alice = user('alice', {})
    expect(authz.decide(alice, put('/v1/systems/s1')).allowed).toBe(true)
    expect(authz.decide(alice, put('/v1/systems/s2')).allowed).toBe(false)
    // A token with the user's id is a different subject.
    const tokenAlice: Principal = { kind: 'token', id: 'alice', roles: new Set(), systemId: null }
    expect(authz.decide(tokenAlice, put('/v1/systems/s1')).allowed).toBe(false)

    const bob = user('bob', { groups: ['dev', 'ops'] })
    expect(authz.decide(bob, put('/v1/policies/systems/s2/rules')).allowed).toBe(true)
    expect(authz.decide(bob, put('/v1/policies/systems/s1/rules')).allowed).toBe(false)
    expect(authz.decide(bob, put('/v1/systems/s2')).allowed).toBe(false) // editors do not configure
    // The claim binding names provider corp: the same claim from another provider does not match.
    expect(
      authz.decide(user('bob', { groups: ['ops'] }, 'other'), put('/v1/policies/systems/s2/rules')).allowed,
    ).toBe(false)
    expect(authz.decide(user('carol', { groups: 'ops' }), put('/v1/policies/systems/s2/rules')).allowed).toBe(
      true,
    )
    expect(authz.decide(user('dave', { groups: 'opsx' }), put('/v1/policies/systems/s2/rules')).allowed).toBe(
      false,
    )

    // `*` matches any value of the claim, from any provider; a user without the claim gets nothing.
    const staff = user('erin', { staff: true }, 'elsewhere')
    expect(authz.decide(staff, { method: 'GET', path: '/v1/systems' }).allowed).toBe(true)
    expect(authz.decide(staff, { method: 'DELETE', path: '/v1/systems/s1' }).allowed).toBe(false)
    expect(authz.decide(user('frank', {}), { method: 'GET', path: '/v1/tokens' }).allowed).toBe(false)
  })

  it('names the grant that allowed a request', async () => {
    const decision = authz.decide(user('alice', {}), { method: 'GET', path: '/v1/systems/s1' })
    expect(decision).toMatchObject({
      allowed: true,
      action: 'systems.read',
      grant: { id: 'alice-owner#0', role: 'SystemOwner', resource: 'system/s1' },
    })
  })

  it('lets agent tokens act only for their own system, as agents', async () => {
    const agent: Principal = { kind: 'token', id: 'system-agent-s1', roles: new Set(), systemId: 's1' }
    expect(authz.decide(agent, { method: 'GET', path: '/v1/bundles/systems/s1' }).allowed).toBe(true)
    expect(authz.decide(agent, { method: 'GET', path: '/v1/bundles/systems/s2' }).allowed).toBe(false)
    expect(authz.decide(agent, { method: 'POST', path: '/v1/logs' }).allowed).toBe(true)
    expect(authz.decide(agent, { method: 'GET', path: '/v1/status', query: { system: 's1' } }).allowed).toBe(
      true,
    )
    expect(
      authz.decide(agent, { method: 'GET', path: '/v1/status', query: { system: 's1,s2' } }).allowed,
    ).toBe(false)
    expect(authz.decide(agent, { method: 'PUT', path: '/v1/policies/systems/s1/x' }).allowed).toBe(false)
  })

  it('notices a change made through another store handle within the check interval', async () => {
    const other = new Authorizer(store.grants, { checkIntervalMs: 0 })
    await other.refresh()
    const gina = user('gina', {})
    expect(other.decide(gina, { method: 'GET', path: '/v1/systems/s1' }).allowed).toBe(false)
    // Written without telling `other` (as another replica would).
    await store.grants.put(
      {
        id: 'gina-view',
        name: 'gina-view',
        description: '',
        role: 'SystemViewer',
        resourceKind: 'system',
        resourceId: 's1',
        subjects: [{ kind: 'user', id: 'gina' }],
      },
      actor,
    )
    await other.refresh()
    expect(other.decide(gina, { method: 'GET', path: '/v1/systems/s1' }).allowed).toBe(true)
  })
})
