/**
 * A minimal Kubernetes API server for end-to-end tests: HTTPS on 127.0.0.1 with a CA made for
 * the test, bearer-token checked, legacy discovery of the core group only (`/api`, `/apis` with
 * no groups, `/api/v1`), and unpaginated lists in the captured shapes of
 * test/service/datasources/cluster-fixtures.ts: namespaces and pods as given, every other
 * listable core type empty. The paginated, failing and aggregated cases live in
 * test/service/datasources/cluster-resources.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  API_VERSIONS,
  CORE_RESOURCES,
  NAMESPACES,
  pod,
  statusBody,
} from '../service/datasources/cluster-fixtures.js'
import { createTestPki } from './test-pki.js'

export interface FakeKubeApi {
  /** The `service.datasources.cluster` settings that point the service at this server. */
  settings: { api_server: string; token_file: string; ca_file: string }
  close(): Promise<void>
}

/** Starts the server with `pods` as [name, namespace, phase] triples. */
export async function startFakeKubeApi(pods: Array<[string, string, string]>): Promise<FakeKubeApi> {
  const token = 'eyJhbGciOiJSUzI1NiJ9.e2e-service-account-token'
  const pki = createTestPki()
  const lists: Record<string, { kind: string; items: unknown[] }> = {
    '/api/v1/namespaces': { kind: 'NamespaceList', items: NAMESPACES },
    '/api/v1/pods': { kind: 'PodList', items: pods.map(([name, ns, phase]) => pod(name, ns, phase)) },
  }
  const server: Server = createServer({ key: pki.serverKey, cert: pki.serverCert }, (req, res) => {
    const path = new URL(req.url ?? '/', 'https://127.0.0.1').pathname
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (req.headers.authorization !== `Bearer ${token}`)
      return send(401, statusBody(401, 'Unauthorized', 'Unauthorized'))
    if (path === '/api') return send(200, API_VERSIONS)
    if (path === '/apis') return send(200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [] })
    if (path === '/api/v1') return send(200, CORE_RESOURCES)
    const resource = /^\/api\/v1\/([a-z]+)$/.exec(path)?.[1]
    const known = CORE_RESOURCES.resources.find((r) => r.name === resource)
    if (!known)
      return send(404, statusBody(404, 'NotFound', 'the server could not find the requested resource'))
    const list = lists[path] ?? { kind: `${known.kind}List`, items: [] }
    send(200, { kind: list.kind, apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: list.items })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const dir = mkdtempSync(join(tmpdir(), 'regent-fake-kube-'))
  writeFileSync(join(dir, 'token'), `${token}\n`)
  writeFileSync(join(dir, 'ca.crt'), pki.ca)
  return {
    settings: {
      api_server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      token_file: join(dir, 'token'),
      ca_file: join(dir, 'ca.crt'),
    },
    close: async () => {
      await new Promise((resolve) => server.close(resolve))
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
