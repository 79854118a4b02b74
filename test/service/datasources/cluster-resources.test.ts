/**
 * `cluster/resources` against a local HTTPS server on 127.0.0.1 (a CA made for the test) that
 * answers as a Kubernetes API server: discovery, PodList/NamespaceList/SecretList/IngressList
 * payloads paginated with `metadata.continue`, a type the account may not list (403), a group
 * whose API is down (503), bearer-token checks with Status bodies. Then namespaces
 * include/exclude, field selectors, masks, a refused token keeping the last good data, and an
 * expired continue token. SQLite and (when configured) PostgreSQL.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle } from '../../../core/bundle/index.js'
import { parseMaskPath, stripPath } from '../../../service/datasources/cluster-masks.js'
import { BACKENDS } from '../../store/backends.js'
import { createTestPki, type TestPki } from '../../support/test-pki.js'
import { startTestService, type TestService } from '../harness.js'
import {
  AGGREGATED_CORE,
  AGGREGATED_GROUPS,
  API_GROUPS,
  API_VERSIONS,
  CORE_RESOURCES,
  INGRESS_CLASSES,
  INGRESSES,
  NAMESPACES,
  NETWORKING_RESOURCES,
  pod,
  SECRETS,
  statusBody,
} from './cluster-fixtures.js'

const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.service-account-token'
const PAGE = 2

const PODS = [
  pod('web-1', 'default', 'Running'),
  pod('web-2', 'default', 'Pending'),
  pod('api-1', 'payments', 'Running'),
  pod('api-2', 'payments', 'Running'),
  pod('coredns-1', 'kube-system', 'Running'),
]

type Item = { metadata: { name: string; namespace?: string } } & Record<string, unknown>

const LISTS: Record<string, { kind: string; items: Item[] }> = {
  '/api/v1/pods': { kind: 'PodList', items: PODS },
  '/api/v1/namespaces': { kind: 'NamespaceList', items: NAMESPACES },
  '/api/v1/secrets': { kind: 'SecretList', items: SECRETS },
  '/api/v1/events': { kind: 'EventList', items: [] },
  '/apis/networking.k8s.io/v1/ingresses': { kind: 'IngressList', items: INGRESSES },
  '/apis/networking.k8s.io/v1/ingressclasses': { kind: 'IngressClassList', items: INGRESS_CLASSES },
}

/** `status.phase=Running`, `status.phase!=Pending`, `metadata.namespace==x`, comma-joined. */
function matchesFieldSelector(item: Item, selector: string | null): boolean {
  if (!selector) return true
  return selector.split(',').every((term) => {
    const m = /^([\w.]+)(!=|==|=)(.*)$/.exec(term)
    if (!m) return false
    const value = m[1]!
      .split('.')
      .reduce<unknown>((node, key) => (node as Record<string, unknown>)?.[key], item)
    return m[2] === '!=' ? value !== m[3] : value === m[3]
  })
}

function kubeApi(pki: TestPki) {
  const state = { requests: [] as string[], expireContinue: false, aggregated: false, stuck: false }
  const server: Server = createServer({ key: pki.serverKey, cert: pki.serverCert }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1')
    state.requests.push(`${url.pathname}${url.search}`)
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (req.headers.authorization !== `Bearer ${TOKEN}`)
      return send(401, statusBody(401, 'Unauthorized', 'Unauthorized'))
    const aggregated = state.aggregated && String(req.headers.accept).includes('as=APIGroupDiscoveryList')
    if (url.pathname === '/api') return send(200, aggregated ? AGGREGATED_CORE : API_VERSIONS)
    if (url.pathname === '/apis') return send(200, aggregated ? AGGREGATED_GROUPS : API_GROUPS)
    if (url.pathname === '/api/v1') return send(200, CORE_RESOURCES)
    if (url.pathname === '/apis/networking.k8s.io/v1') return send(200, NETWORKING_RESOURCES)
    if (url.pathname.startsWith('/apis/metrics.k8s.io'))
      return send(
        503,
        statusBody(503, 'ServiceUnavailable', 'the server is currently unable to handle the request'),
      )
    if (/configmaps$/.test(url.pathname))
      return send(
        403,
        statusBody(
          403,
          'Forbidden',
          'configmaps is forbidden: User "system:serviceaccount:regent:regent" cannot list resource "configmaps" in API group "" at the cluster scope',
        ),
      )
    // A list in one namespace: /api/v1/namespaces/<ns>/<resource>.
    const scoped = /^(\/apis?\/(?:[^/]+\/)?v1)\/namespaces\/([^/]+)\/([^/]+)$/.exec(url.pathname)
    const listPath = scoped ? `${scoped[1]}/${scoped[3]}` : url.pathname
    const list = LISTS[listPath]
    if (!list)
      return send(404, statusBody(404, 'NotFound', 'the server could not find the requested resource'))
    const token = url.searchParams.get('continue')
    if (token && state.expireContinue)
      return send(
        410,
        statusBody(
          410,
          'Expired',
          'The provided continue parameter is too old to display a consistent list result.',
        ),
      )
    const matching = list.items.filter(
      (item) =>
        (!scoped || item.metadata.namespace === scoped[2]) &&
        matchesFieldSelector(item, url.searchParams.get('fieldSelector')),
    )
    // A broken server: the second page names itself as the next one.
    if (token && state.stuck)
      return send(200, { kind: list.kind, apiVersion: 'v1', metadata: { continue: token }, items: [] })
    const start = token ? Number(Buffer.from(token, 'base64').toString()) : 0
    const size = Math.min(Number(url.searchParams.get('limit') ?? 1000), PAGE)
    const next =
      start + size < matching.length ? Buffer.from(String(start + size)).toString('base64') : undefined
    send(200, {
      kind: list.kind,
      apiVersion: listPath.startsWith('/apis/') ? 'networking.k8s.io/v1' : 'v1',
      metadata: {
        resourceVersion: '48213',
        ...(next ? { continue: next, remainingItemCount: matching.length - start - size } : {}),
      },
      items: structuredClone(matching.slice(start, start + size)),
    })
  })
  return { server, state }
}

describe('mask paths', () => {
  it('split on . and /, keep quoted steps whole, and refuse unclosed quotes', () => {
    expect(parseMaskPath('spec/livenessProbe')).toEqual(['spec', 'livenessProbe'])
    expect(parseMaskPath("metadata.annotations.'kubectl.kubernetes.io/last-applied-configuration'")).toEqual([
      'metadata',
      'annotations',
      'kubectl.kubernetes.io/last-applied-configuration',
    ])
    expect(() => parseMaskPath("metadata.'open")).toThrow('unclosed quote')
    expect(() => parseMaskPath('spec..x')).toThrow('empty step')
  })

  it('strip through arrays and with * steps', () => {
    const resource = pod('web-1', 'default', 'Running') as Record<string, unknown>
    stripPath(resource, parseMaskPath('spec.containers.env'))
    stripPath(resource, parseMaskPath('status.*'))
    const spec = resource.spec as { containers: Array<Record<string, unknown>> }
    expect(spec.containers[0]).not.toHaveProperty('env')
    expect(spec.containers[0]).toHaveProperty('image')
    expect(resource.status).toEqual({})
  })
})

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`cluster/resources datasource on ${backend.name}`, () => {
    let t: TestService
    let api: ReturnType<typeof kubeApi>
    let tokenFile: string
    const put = async (name: string, extra: Record<string, unknown> = {}) => {
      const res = await t.json<{ message?: string }>('PUT', `/v1/datasources/systems/app/${name}`, {
        body: { category: 'cluster/resources', on_premises: true, rate_limit: 1000, ...extra },
      })
      expect(res.status, res.body.message).toBe(200)
    }
    const run = async (name: string) => {
      const res = await t.json<{ result: { code: string; message: string }; message?: string }>(
        'POST',
        `/v1/datasources/systems/app/${name}`,
      )
      expect(res.status, res.body.message).toBe(200)
      return res.body.result
    }
    const data = async (name: string) => {
      const bytes = new Uint8Array(await (await t.call('GET', '/v1/bundles/systems/app')).arrayBuffer())
      // biome-ignore lint/suspicious/noExplicitAny: nested test data, read by path
      return ((await readBundle(bytes)).data as Record<string, unknown>)[name] as Record<string, any>
    }

    beforeAll(async () => {
      const pki = createTestPki()
      api = kubeApi(pki)
      await new Promise<void>((resolve) => api.server.listen(0, '127.0.0.1', resolve))
      const dir = mkdtempSync(join(tmpdir(), 'regent-cluster-'))
      tokenFile = join(dir, 'token')
      writeFileSync(tokenFile, `${TOKEN}\n`)
      writeFileSync(join(dir, 'ca.crt'), pki.ca)
      const server = `https://127.0.0.1:${(api.server.address() as AddressInfo).port}`
      t = await startTestService(
        backend,
        JSON.stringify({
          datasources: {
            scheduler_interval: '1h',
            cluster: { api_server: server, token_file: tokenFile, ca_file: join(dir, 'ca.crt') },
          },
        }),
      )
      await t.json('PUT', '/v1/systems/app', {
        body: { name: 'app', type: 'custom' },
        headers: { 'If-None-Match': '*' },
      })
    })
    afterAll(async () => {
      await t?.close()
      await new Promise((resolve) => api?.server.close(resolve))
    })

    it.each([
      ['per-group discovery', false],
      ['aggregated discovery', true],
    ])(
      'lists every listable type, page by page, into group → namespace → name (%s)',
      async (_, aggregated) => {
        api.state.requests.length = 0
        api.state.aggregated = aggregated
        const name = aggregated ? 'aggregated' : 'cluster'
        try {
          await put(name)
          expect(await run(name)).toMatchObject({ code: 'ok' })
        } finally {
          api.state.aggregated = false
        }
        const discovery = api.state.requests.filter((r) => !r.includes('limit='))
        expect(discovery).toEqual(
          aggregated
            ? ['/api', '/apis']
            : ['/api', '/apis', '/api/v1', '/apis/networking.k8s.io/v1', '/apis/metrics.k8s.io/v1beta1'],
        )
        const cluster = await data(name)
        expect(Object.keys(cluster).sort()).toEqual([
          'namespaces',
          'networking.k8s.io/ingressclasses',
          'networking.k8s.io/ingresses',
          'pods',
          'secrets',
        ])
        expect(Object.keys(cluster.pods)).toEqual(['default', 'payments', 'kube-system'])
        expect(Object.keys(cluster.pods.default)).toEqual(['web-1', 'web-2'])
        expect(cluster.pods.payments['api-1']).toMatchObject({
          kind: 'Pod',
          apiVersion: 'v1',
          status: { phase: 'Running' },
        })
        expect(Object.keys(cluster.namespaces)).toEqual(['default', 'payments', 'kube-system'])
        expect(cluster.namespaces.payments.kind).toBe('Namespace')
        expect(cluster['networking.k8s.io/ingresses'].payments.shop).toMatchObject({
          kind: 'Ingress',
          apiVersion: 'networking.k8s.io/v1',
        })
        expect(cluster['networking.k8s.io/ingressclasses'].nginx.spec.controller).toBe('k8s.io/ingress-nginx')
        // Secrets keep their names and types, never their values.
        expect(cluster.secrets.payments.db).not.toHaveProperty('data')
        expect(cluster.secrets.payments.db.type).toBe('Opaque')
        // 5 pods at 2 a page: 3 requests, the later ones continuing where the last stopped.
        const podRequests = api.state.requests.filter((r) => r.startsWith('/api/v1/pods'))
        expect(podRequests).toHaveLength(3)
        expect(podRequests[0]).toBe('/api/v1/pods?limit=500')
        expect(podRequests[1]).toMatch(/^\/api\/v1\/pods\?limit=500&continue=/)
        expect(api.state.requests.some((r) => r.startsWith('/api/v1/events'))).toBe(false)
      },
    )

    it('lists only the namespaces named true when * is false, with field selectors and masks', async () => {
      api.state.requests.length = 0
      await put('payments', {
        namespaces: { '': false, '*': false, payments: true },
        selectors: { pods: 'status.phase=Running', ingress: 'metadata.name=none' },
        masks: {
          pods: [
            'spec.containers.env',
            "metadata.annotations.'kubectl.kubernetes.io/last-applied-configuration'",
          ],
          secrets: ['*'],
        },
      })
      expect(await run('payments')).toMatchObject({ code: 'ok' })
      const cluster = await data('payments')
      expect(Object.keys(cluster).sort()).toEqual(['networking.k8s.io/ingresses', 'pods'])
      expect(Object.keys(cluster.pods)).toEqual(['payments'])
      const api1 = cluster.pods.payments['api-1']
      expect(api1.spec.containers[0]).not.toHaveProperty('env')
      expect(api1.spec.containers[0].image).toBe('registry.example.com/app:1.4.2')
      expect(api1.metadata.annotations).toEqual({ 'team.example.com/owner': 'payments' })
      // The selector named by the singular `ingress` reached the API and matched nothing.
      expect(cluster['networking.k8s.io/ingresses']).toEqual({})
      expect(api.state.requests).toContain(
        '/api/v1/namespaces/payments/pods?limit=500&fieldSelector=status.phase%3DRunning',
      )
      expect(api.state.requests.some((r) => r === '/api/v1/namespaces?limit=500')).toBe(false)
      expect(api.state.requests.some((r) => r.includes('/secrets'))).toBe(false)
    })

    it('leaves out excluded namespaces from a cluster-wide list', async () => {
      await put('no-system', { namespaces: { 'kube-system': false } })
      expect(await run('no-system')).toMatchObject({ code: 'ok' })
      expect(Object.keys((await data('no-system')).pods)).toEqual(['default', 'payments'])
    })

    it('fails when the token is refused and keeps the last good data', async () => {
      await put('kept', { namespaces: { '*': false, default: true } })
      expect(await run('kept')).toMatchObject({ code: 'ok' })
      writeFileSync(tokenFile, 'expired-token\n')
      try {
        expect(await run('kept')).toMatchObject({
          code: 'error',
          message: 'auth error: the API server refused the service account token (401): Unauthorized',
        })
      } finally {
        writeFileSync(tokenFile, `${TOKEN}\n`)
      }
      expect(Object.keys((await data('kept')).pods.default)).toEqual(['web-1', 'web-2'])
    })

    it('fails when a continue token expired mid-list', async () => {
      await put('expired')
      api.state.expireContinue = true
      try {
        const failed = await run('expired')
        expect(failed.code).toBe('error')
        expect(failed.message).toMatch(
          /^cluster error: the list of \S+ changed too much while it was paged \(410\); the next run reads it again$/,
        )
      } finally {
        api.state.expireContinue = false
      }
    })

    it('fails when a list answers the same continue token again', async () => {
      await put('stuck', { namespaces: { '': false } })
      api.state.stuck = true
      try {
        expect(await run('stuck')).toMatchObject({
          code: 'error',
          message: 'cluster error: GET /api/v1/pods answered the same continue token twice',
        })
      } finally {
        api.state.stuck = false
      }
    })

    it('refuses a mask path that does not parse, naming the field', async () => {
      const res = await t.json<{ message?: string; errors?: string[] }>(
        'PUT',
        '/v1/datasources/systems/app/bad',
        {
          body: { category: 'cluster/resources', on_premises: true, masks: { pods: ["metadata.'open"] } },
        },
      )
      expect(res.status).toBe(400)
      expect(`${res.body.message}\n${(res.body.errors ?? []).join('\n')}`).toContain(
        'masks.pods.0: expected a property path',
      )
    })
  })
}
