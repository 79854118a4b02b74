import { startTestService } from '../service/harness.js'
import { BACKENDS } from '../store/backends.js'
const s = await startTestService(BACKENDS[0]!)
const c = await s.json('POST', '/v1/systems', { body: { name: 'demo', type: 'custom' } })
const id = (c.body as any).result.id
await s.json('PUT', `/v1/policies/systems/${id}/rules`, { body: { modules: { 'authz.rego': 'package authz\nimport rego.v1\ndefault allow := false\nallow if input.user == "alice"\n' } } })
await s.json('PUT', `/v1/data/systems/${id}/users`, { body: { alice: 1 } })
const ds = await s.json('PUT', `/v1/datasources/systems/${id}/http1`, { body: { category: 'http', type: 'pull', url: 'http://127.0.0.1:1/x', polling_interval: '1h' } })
console.log('DS PUT', JSON.stringify(ds.body))
for (const p of [`/v1/systems`, `/v1/systems/${id}`, `/v1/policies/systems/${id}`, `/v1/policies/systems/${id}/rules`, `/v1/datasources?system=${id}`, `/v1/systems/${id}/bundles`, `/v1/systems/${id}/bundle-deploy`, `/v1/data/systems/${id}`, '/v2/activity?limit=3']) {
  const r = await s.json('GET', p)
  console.log('==', p, r.status, JSON.stringify(r.body).slice(0, 1500))
}
const a = await s.call('GET', `/v1/systems/${id}/assets/opa-config`)
console.log(a.status, a.headers.get('content-type'), (await a.text()).slice(0, 300))
await s.close()
