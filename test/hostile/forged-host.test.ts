/**
 * Hostile: a caller who may read a system's configs (an administrator's token leaked to a
 * script, the system's own agent token) forges the Host header so that the generated config
 * points agents, with their token, at a host of the caller's choosing. Without
 * `service.public_url`, configs name only the address the request arrived on or an allowed
 * host; anything else is refused with 400 naming public_url, and nothing of the token leaks.
 */
import { request as httpRequest } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { ADMIN_TOKEN, startTestService, type TestService } from '../service/harness.js'
import { BACKENDS } from '../store/backends.js'

const sqlite = BACKENDS.find((b) => b.name === 'sqlite')!
let t: TestService | undefined
afterEach(async () => {
  await t?.close()
  t = undefined
})

interface Answer {
  status: number
  text: string
}

/** GET with the Host header (and any other) exactly as given; fetch would not send a forged Host. */
function getWithHost(base: string, path: string, headers: Record<string, string>): Promise<Answer> {
  const url = new URL(base)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: 'GET',
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, ...headers },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }))
      },
    )
    req.on('error', reject)
    req.end()
  })
}

async function serviceWithSystem(yaml = '{}'): Promise<{ port: string; assets: (kind: string) => string }> {
  t = await startTestService(sqlite, yaml)
  const created = await t.json<{ result: { id: string } }>('POST', '/v1/systems', {
    body: { name: 'forged-host', type: 'envoy' },
  })
  expect(created.status).toBe(200)
  const id = created.body.result.id
  return { port: new URL(t.url).port, assets: (kind) => `/v1/systems/${id}/assets/${kind}` }
}

const serviceUrlOf = (answer: Answer) =>
  (parseYaml(answer.text) as { services: Array<{ url: string }> }).services[0]!.url

describe('forged Host headers on generated configs', () => {
  it('names the address the request arrived on (localhost too on loopback), and nothing else', async () => {
    const { port, assets } = await serviceWithSystem()
    for (const kind of ['opa-config', 'relay-config']) {
      const own = await getWithHost(t!.url, assets(kind), { Host: `127.0.0.1:${port}` })
      expect(own.status).toBe(200)
      expect(serviceUrlOf(own)).toBe(`http://127.0.0.1:${port}/v1`)
      const local = await getWithHost(t!.url, assets(kind), { Host: `localhost:${port}` })
      expect(serviceUrlOf(local)).toBe(`http://localhost:${port}/v1`)

      for (const forged of [`evil.example:${port}`, 'evil.example', `127.0.0.1:${Number(port) + 1}`]) {
        const answer = await getWithHost(t!.url, assets(kind), { Host: forged })
        expect([forged, answer.status]).toEqual([forged, 400])
        const body = JSON.parse(answer.text) as Record<string, string>
        expect(body).toMatchObject({ code: 'invalid_parameter' })
        expect(body.request_id).toBeTruthy()
        expect(body.message).toMatch(/service\.public_url/)
        expect(answer.text).not.toMatch(/bearer|token:/i)
      }
      // Not a host at all: refused (by the HTTP adapter already), never echoed into a config.
      const malformed = await getWithHost(t!.url, assets(kind), { Host: '127.0.0.1@evil.example' })
      expect(malformed.status).toBe(400)
      expect(malformed.text).not.toMatch(/evil|token:/i)
    }
  })

  it('ignores X-Forwarded-Host unless trust_forwarded_host is set', async () => {
    const { port, assets } = await serviceWithSystem()
    const answer = await getWithHost(t!.url, assets('opa-config'), {
      Host: `127.0.0.1:${port}`,
      'X-Forwarded-Host': 'evil.example',
      'X-Forwarded-Proto': 'https',
    })
    expect(answer.status).toBe(200)
    expect(serviceUrlOf(answer)).toBe(`http://127.0.0.1:${port}/v1`)
  })

  it('accepts hosts in service.allowed_hosts (name for any port, name:port for one)', async () => {
    const { port, assets } = await serviceWithSystem(
      '{allowed_hosts: [regent.internal, "regent.other:9443"]}',
    )
    const named = await getWithHost(t!.url, assets('opa-config'), { Host: `regent.internal:${port}` })
    expect(serviceUrlOf(named)).toBe(`http://regent.internal:${port}/v1`)
    expect(serviceUrlOf(await getWithHost(t!.url, assets('opa-config'), { Host: 'regent.other:9443' }))).toBe(
      'http://regent.other:9443/v1',
    )
    expect((await getWithHost(t!.url, assets('opa-config'), { Host: 'regent.other:9444' })).status).toBe(400)
  })

  it('behind a trusted proxy, takes X-Forwarded-Host/-Proto, still only for allowed hosts', async () => {
    const { port, assets } = await serviceWithSystem(
      '{trust_forwarded_host: true, allowed_hosts: [regent.example.com]}',
    )
    const viaProxy = await getWithHost(t!.url, assets('opa-config'), {
      Host: `127.0.0.1:${port}`,
      'X-Forwarded-Host': 'regent.example.com',
      'X-Forwarded-Proto': 'https',
    })
    expect(serviceUrlOf(viaProxy)).toBe('https://regent.example.com/v1')
    const forged = await getWithHost(t!.url, assets('opa-config'), {
      Host: `127.0.0.1:${port}`,
      'X-Forwarded-Host': 'evil.example',
    })
    expect(forged.status).toBe(400)
    expect(forged.text).toMatch(/X-Forwarded-Host \\"evil\.example\\"/)
  })

  it('uses service.public_url whatever the Host says', async () => {
    const { assets } = await serviceWithSystem('{public_url: "https://regent.example.com/"}')
    const answer = await getWithHost(t!.url, assets('relay-config'), { Host: 'evil.example' })
    expect(answer.status).toBe(200)
    expect(serviceUrlOf(answer)).toBe('https://regent.example.com/v1')
  })
})
