/**
 * Hostile: request bodies that are not UTF-8. A real `regent service` and a real relay on
 * 127.0.0.1 refuse them with 400 on every route that reads a body, and store nothing: before,
 * the service rewrote the bad bytes to U+FFFD and stored a decision_id nobody sent.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decisionLogsExtension } from '../../relay/decision-logs/index.js'
import type { RunningRelay } from '../../relay/relay.js'
import { relayConfig, startTestRelay } from '../relay/helpers.js'
import { type RegentProcess, startRegent } from '../relay/support/processes.js'

const ADMIN = 'hostile-utf8-admin-token-0123456789'
const BAD = Buffer.from([0xff])
/** A text with one byte that is not UTF-8 inside a JSON string. */
const withBadByte = (before: string, after: string) =>
  Buffer.concat([Buffer.from(before), BAD, Buffer.from(after)])

describe('invalid UTF-8 in request bodies', () => {
  const dir = mkdtempSync(join(tmpdir(), 'regent-hostile-utf8-'))
  let service: RegentProcess
  let relay: RunningRelay

  beforeAll(async () => {
    service = await startRegent(['service', '--addr', '127.0.0.1:0', '--data-dir', join(dir, 'service')], {
      REGENT_ADMIN_TOKEN: ADMIN,
    })
    // Uploads go to the service; nothing should reach it.
    relay = await startTestRelay(
      relayConfig(
        `services: [{name: svc, url: '${service.url}/v1', credentials: {bearer: {token: ${ADMIN}}}}]\nrelay: {status: {forward_interval_seconds: 3600}}`,
      ),
      join(dir, 'relay'),
      { extensions: [decisionLogsExtension] },
    )
  }, 30_000)

  afterAll(async () => {
    await relay?.stop()
    await service?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  async function send(url: string, method: string, body: Buffer, headers: Record<string, string> = {}) {
    const res = await request(url, {
      method: method as 'POST',
      body,
      headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json', ...headers },
    })
    return { status: res.statusCode, text: await res.body.text() }
  }

  it('the service refuses it with 400 on every route that reads a body, naming the byte', async () => {
    const decision = withBadByte('[{"decision_id":"evil-', '","timestamp":"2024-01-01T00:00:00Z"}]')
    const cases: Array<[string, string, Buffer, Record<string, string>?]> = [
      ['POST', '/v1/logs', decision],
      ['POST', '/v1/logs', gzipSync(decision), { 'Content-Encoding': 'gzip' }],
      // Gzip without saying so (some senders do): inflated, then refused all the same.
      ['POST', '/v1/logs/partition', gzipSync(decision)],
      ['POST', '/v1/systems', withBadByte('{"name":"sys-', '","type":"custom"}')],
      ['PUT', '/v1/data/some/doc', withBadByte('{"k":"', '"}')],
      ['PUT', '/v1/data/some/doc', withBadByte('k: "', '"'), { 'Content-Type': 'application/x-yaml' }],
      ['POST', '/v1/status', withBadByte('{"labels":{"id":"a', '"}}')],
      ['POST', '/v1/decisions', withBadByte('{"query":"', '"}')],
      ['PUT', '/v1/policies/sys/p', withBadByte('{"modules":{"a.rego":"package a', '"}}')],
    ]
    for (const [method, path, body, headers] of cases) {
      const res = await send(`${service.url}${path}`, method, body, headers)
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 400 })
      expect(JSON.parse(res.text)).toMatchObject({
        code: 'invalid_parameter',
        message: expect.stringMatching(/^request body is not valid UTF-8 \(byte \d+: 0xff\)$/),
      })
    }
    const metrics = await (await request(`${service.url}/metrics`)).body.text()
    expect(metrics).not.toMatch(/regent_service_decisions_received_total\{outcome="stored"\} [1-9]/)
    const systems = await request(`${service.url}/v1/systems`, {
      headers: { Authorization: `Bearer ${ADMIN}` },
    })
    expect(await systems.body.text()).not.toContain('sys-')
  })

  it('the relay refuses it with 400 on decision-log and status intake', async () => {
    const decision = withBadByte('[{"decision_id":"evil-', '","timestamp":"2024-01-01T00:00:00Z"}]')
    for (const [path, body] of [
      ['/v1/logs', decision],
      ['/v1/status', withBadByte('{"labels":{"id":"a', '"}}')],
    ] as const) {
      const res = await send(`${relay.url}${path}`, 'POST', body)
      expect({ path, status: res.status }).toEqual({ path, status: 400 })
      expect(res.text).toMatch(/not valid UTF-8/)
    }
  })
})
