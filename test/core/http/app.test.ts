import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../../core/http/app.js'
import { badRequest, serviceUnavailable } from '../../../core/http/errors.js'
import { createLogger } from '../../../core/log.js'

function capturedLogger() {
  const lines: Record<string, unknown>[] = []
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line))
      done()
    },
  })
  return { logger: createLogger({ level: 'info', destination }), lines }
}

describe('createApp', () => {
  it('echoes a caller request id and logs it with the request', async () => {
    const { logger, lines } = capturedLogger()
    const app = createApp({ errorStyle: 'opa', logger })
    app.get('/ok', (c) => c.json({ id: c.var.requestId }))
    const res = await app.request('/ok', { headers: { 'X-Request-Id': 'abc-123' } })
    expect(res.headers.get('X-Request-Id')).toBe('abc-123')
    expect(await res.json()).toEqual({ id: 'abc-123' })
    expect(lines.find((l) => l.msg === 'request')).toMatchObject({
      req_id: 'abc-123',
      status: 200,
      path: '/ok',
    })
  })

  it('generates a request id when none (or an unusable one) is given', async () => {
    const app = createApp({ errorStyle: 'opa', logger: capturedLogger().logger })
    app.get('/ok', (c) => c.text('ok'))
    const plain = await app.request('/ok')
    expect(plain.headers.get('X-Request-Id')).toMatch(/^[0-9a-f-]{36}$/)
    const hostile = await app.request('/ok', { headers: { 'X-Request-Id': 'bad id\twith spaces' } })
    expect(hostile.headers.get('X-Request-Id')).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('answers unknown routes with a JSON 404 in OPA shape', async () => {
    const app = createApp({ errorStyle: 'opa', logger: capturedLogger().logger })
    const res = await app.request('/nope', { method: 'POST' })
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ code: 'resource_not_found', message: 'no route for POST /nope' })
  })

  it('answers errors in the management envelope with the request id', async () => {
    const app = createApp({ errorStyle: 'management', logger: capturedLogger().logger })
    app.get('/bad', () => {
      throw badRequest('name: required', ['name'])
    })
    const res = await app.request('/bad', { headers: { 'X-Request-Id': 'r1' } })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({
      request_id: 'r1',
      code: 'invalid_parameter',
      message: 'name: required',
      errors: ['name'],
    })
  })

  it('sets headers an error carries, such as Retry-After', async () => {
    const app = createApp({ errorStyle: 'opa', logger: capturedLogger().logger })
    app.post('/full', () => {
      throw serviceUnavailable('buffer full', 5)
    })
    const res = await app.request('/full', { method: 'POST' })
    expect(res.status).toBe(503)
    expect(res.headers.get('Retry-After')).toBe('5')
  })

  it('hides the details of unexpected failures and logs them', async () => {
    const { logger, lines } = capturedLogger()
    const app = createApp({ errorStyle: 'opa', logger })
    app.get('/boom', () => {
      throw new Error('secret internals')
    })
    const res = await app.request('/boom')
    expect(res.status).toBe(500)
    expect(await res.json()).toEqual({ code: 'internal_error', message: 'internal error' })
    expect(lines.some((l) => l.msg === 'request failed')).toBe(true)
  })

  it('logs an expected refusal as one line with its reason and no stack', async () => {
    const { logger, lines } = capturedLogger()
    const app = createApp({ errorStyle: 'opa', logger })
    app.post('/full', () => {
      throw serviceUnavailable(
        'the decision-log buffer cannot store events now (SQLITE_FULL); retry later',
        5,
      )
    })
    app.post('/bad', () => {
      throw badRequest('event 3: decision_id must be a string')
    })
    expect((await app.request('/full', { method: 'POST' })).status).toBe(503)
    expect((await app.request('/bad', { method: 'POST' })).status).toBe(400)
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatchObject({ msg: 'request', status: 503, code: 'service_unavailable' })
    expect(lines[0]!.reason).toMatch(/SQLITE_FULL/)
    expect(lines[1]).toMatchObject({
      msg: 'request',
      status: 400,
      reason: 'event 3: decision_id must be a string',
    })
    expect(JSON.stringify(lines)).not.toMatch(/stack|\bat /)
  })

  it('answers a full disk (SQLITE_FULL, ENOSPC) from any route with 503 and Retry-After, logged as one line', async () => {
    const { logger, lines } = capturedLogger()
    const app = createApp({ errorStyle: 'management', logger })
    app.put('/write', () => {
      throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })
    })
    const res = await app.request('/write', { method: 'PUT' })
    expect(res.status).toBe(503)
    expect(res.headers.get('Retry-After')).toBe('5')
    expect(await res.json()).toMatchObject({
      code: 'service_unavailable',
      message: expect.stringMatching(/disk is full/),
    })
    expect(lines).toHaveLength(1)
    expect(JSON.stringify(lines)).not.toMatch(/stack/)
  })
})
