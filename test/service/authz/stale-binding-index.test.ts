/**
 * The v2 binding routes check the binding they read in their own transaction, not only the
 * authorizer's in-memory index: a binding moved off a system by another replica (the index here
 * never reloads, standing in for the second before a replica notices) is no longer managed by that
 * system's owner. On SQLite and PostgreSQL.
 */
import type { Hono } from 'hono'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../../core/http/index.js'
import { Authorizer } from '../../../service/authz/authorizer.js'
import { authorize } from '../../../service/authz/middleware.js'
import { authzV2Routes } from '../../../service/routes/authz-v2.js'
import type { ServiceDeps, ServiceEnv } from '../../../service/types.js'
import type { ServiceStore } from '../../../store/service/index.js'
import { BACKENDS, openTestStore } from '../../store/backends.js'

const ACTOR = { by: 'test', through: 'test' }

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`v2 binding routes over a stale index on ${backend.name}`, () => {
    let store: ServiceStore
    let close: () => Promise<void>
    let app: Hono<ServiceEnv>
    beforeAll(async () => {
      ;({ store, close } = await openTestStore(backend))
      // Reads the grants once and never again: what another replica writes stays unseen.
      const authorizer = new Authorizer(store.grants, { checkIntervalMs: 3_600_000 })
      await store.grants.put(
        {
          id: 'owners',
          name: 'owners',
          description: '',
          role: 'SystemOwner',
          resourceKind: 'system',
          resourceId: 'mine',
          subjects: [{ kind: 'token', id: 'owner' }],
        },
        ACTOR,
      )
      await store.grants.put(
        {
          id: 'moving',
          name: 'moving',
          description: '',
          role: 'SystemViewer',
          resourceKind: 'system',
          resourceId: 'mine',
          subjects: [{ kind: 'user', id: 'bob' }],
        },
        ACTOR,
      )
      app = createApp({
        errorStyle: 'management',
        logger: pino({ level: 'silent' }),
      }) as unknown as Hono<ServiceEnv>
      app.use('/v2/*', async (c, next) => {
        c.set('principal', { kind: 'token', id: 'owner', roles: new Set(), systemId: null })
        await next()
      })
      app.use('/v2/*', authorize(authorizer))
      app.route('/', authzV2Routes({ store, authorizer } as unknown as ServiceDeps))
    })
    afterAll(async () => close?.())

    it('refuses to manage a binding the index still places on the owner’s system', async () => {
      expect((await app.request('/v2/authz/rolebindings/moving')).status).toBe(200)
      // Another replica moves the binding to the workspace.
      const moved = (await store.grants.get('moving'))!
      await store.grants.put({ ...moved, resourceKind: 'workspace', resourceId: '' }, ACTOR)

      const read = await app.request('/v2/authz/rolebindings/moving')
      expect(read.status).toBe(403)
      const edit = await app.request('/v2/authz/rolebindings/moving/subjects', {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ subjects: [{ kind: 'token', id: 'owner' }] }),
      })
      expect(edit.status).toBe(403)
      expect(((await edit.json()) as { message: string }).message).toMatch(
        /token owner may not authz\.write on the workspace/,
      )
      const replace = await app.request('/v2/authz/rolebindings', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          id: 'moving',
          resource_filter: { kind: 'system', id: 'mine' },
          role_id: 'SystemViewer',
          subjects: [],
        }),
      })
      expect(replace.status).toBe(403)
      expect((await app.request('/v2/authz/rolebindings/moving', { method: 'DELETE' })).status).toBe(403)
      const kept = await store.grants.get('moving')
      expect(kept).toMatchObject({ resourceKind: 'workspace', subjects: [{ kind: 'user', id: 'bob' }] })
    })
  })
}
