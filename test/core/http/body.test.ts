import { gzipSync } from 'node:zlib'
import type { Context } from 'hono'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../../core/http/app.js'
import { type BodyLimits, readBody, readBodyText, readStructuredBody } from '../../../core/http/body.js'
import { createLogger } from '../../../core/log.js'

const limits: BodyLimits = { maxBytes: 64 * 1024, maxDecompressedBytes: 1024 * 1024 }

function echoApp() {
  const app = createApp({ errorStyle: 'opa', logger: createLogger({ level: 'silent' }) })
  app.post('/raw', async (c: Context) => c.json({ bytes: (await readBody(c, limits)).length }))
  app.post('/text', async (c: Context) => c.json({ text: await readBodyText(c, limits) }))
  app.post('/logs', async (c: Context) =>
    c.json({ text: await readBodyText(c, limits, { unlabelledGzip: true }) }),
  )
  app.post('/doc', async (c: Context) => c.json({ doc: (await readStructuredBody(c, limits)) ?? null }))
  return app
}

async function post(path: string, body: string | Uint8Array, headers: Record<string, string> = {}) {
  const res = await echoApp().request(path, { method: 'POST', body, headers })
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

describe('readBody', () => {
  it('reads a body within the limit', async () => {
    expect(await post('/raw', 'x'.repeat(1000))).toEqual({ status: 200, body: { bytes: 1000 } })
  })

  it('gives a second reader (a middleware before the route) the same bytes', async () => {
    const app = createApp({ errorStyle: 'opa', logger: createLogger({ level: 'silent' }) })
    let first: unknown
    app.use('/twice', async (c, next) => {
      first = await readStructuredBody(c, limits)
      await next()
    })
    app.post('/twice', async (c: Context) => c.json({ first, second: await readStructuredBody(c, limits) }))
    const res = await app.request('/twice', {
      method: 'POST',
      body: gzipSync('{"a": [1, 2]}'),
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ first: { a: [1, 2] }, second: { a: [1, 2] } })
  })

  it('refuses a body over the limit with 413', async () => {
    const res = await post('/raw', 'x'.repeat(limits.maxBytes + 1))
    expect(res.status).toBe(413)
    expect(res.body.message).toContain(`larger than ${limits.maxBytes} bytes`)
  })

  it('refuses early when Content-Length announces too much', async () => {
    const res = await post('/raw', 'small', { 'Content-Length': String(limits.maxBytes * 10) })
    expect(res.status).toBe(413)
  })

  it('inflates gzip bodies', async () => {
    expect(await post('/raw', gzipSync(Buffer.alloc(5000, 'a')), { 'Content-Encoding': 'gzip' })).toEqual({
      status: 200,
      body: { bytes: 5000 },
    })
  })

  it('refuses a gzip bomb with 413 without inflating it whole', async () => {
    // ~1 GB of zeros compresses to ~1 MB; a few KB of it still inflate to far past the limit.
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 })
    expect(bomb.length).toBeLessThan(limits.maxBytes)
    const before = process.memoryUsage().rss
    const res = await post('/raw', bomb, { 'Content-Encoding': 'gzip' })
    expect(res.status).toBe(413)
    expect(res.body.message).toContain('inflates to more than')
    // It stopped at the limit rather than allocating the full 64 MiB.
    expect(process.memoryUsage().rss - before).toBeLessThan(48 * 1024 * 1024)
  })

  it('answers 400 for corrupt gzip and 415 for unknown encodings', async () => {
    expect((await post('/raw', 'not gzip at all', { 'Content-Encoding': 'gzip' })).status).toBe(400)
    expect((await post('/raw', 'x', { 'Content-Encoding': 'compress' })).status).toBe(415)
  })
})

describe('readStructuredBody', () => {
  it('parses JSON and YAML by Content-Type', async () => {
    expect((await post('/doc', '{"a": [1, 2]}', { 'Content-Type': 'application/json' })).body).toEqual({
      doc: { a: [1, 2] },
    })
    expect((await post('/doc', 'a:\n  - 1\n  - 2\n', { 'Content-Type': 'application/x-yaml' })).body).toEqual(
      {
        doc: { a: [1, 2] },
      },
    )
  })

  it('answers malformed JSON with 400 and the position', async () => {
    const res = await post('/doc', '{\n  "a": 1,\n  "b": }', { 'Content-Type': 'application/json' })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('invalid_parameter')
    expect(res.body.message).toMatch(/^malformed JSON body at line 3, column 8: /)
  })

  it('answers malformed YAML with 400 and the position', async () => {
    const res = await post('/doc', 'a: [1, 2\nb: c', { 'Content-Type': 'application/yaml' })
    expect(res.status).toBe(400)
    expect(res.body.message).toMatch(/^malformed YAML body at line \d+, column \d+: /)
  })

  it('answers 400 for a YAML alias inside the node it names, naming where', async () => {
    for (const [body, where] of [
      ['a: &x [*x]', 'a.0'],
      ['a:\n  b: &y\n    c: *y', 'a.b.c'],
    ]) {
      const res = await post('/doc', body as string, { 'Content-Type': 'application/yaml' })
      expect(res.status).toBe(400)
      expect(res.body.message).toBe(
        `malformed YAML body: the alias at ${where} refers to a node that contains it`,
      )
    }
    // An alias to a sibling is fine.
    const ok = await post('/doc', 'a: &x [1]\nb: *x', { 'Content-Type': 'application/yaml' })
    expect(ok.body).toEqual({ doc: { a: [1], b: [1] } })
  })

  it('refuses a YAML body with more nodes than maxYamlNodes with 413, and a duplicate key with 400', async () => {
    const app = createApp({ errorStyle: 'opa', logger: createLogger({ level: 'silent' }) })
    app.post('/doc', async (c: Context) =>
      c.json({ doc: (await readStructuredBody(c, { ...limits, maxYamlNodes: 6 })) ?? null }),
    )
    const send = async (body: string) => {
      const res = await app.request('/doc', {
        method: 'POST',
        body,
        headers: { 'Content-Type': 'application/x-yaml' },
      })
      return { status: res.status, body: (await res.json()) as Record<string, unknown> }
    }
    expect((await send('a: 1\nb: 2\nc: 3\n')).status).toBe(200)
    const tooMany = await send('a: 1\nb: 2\nc: 3\nd: 4\n')
    expect(tooMany.status).toBe(413)
    expect(tooMany.body.message).toMatch(
      /^YAML body at line 4, column \d+: the document has more than 6 nodes/,
    )
    const duplicate = await send('a: 1\nb: 2\na: 3\n')
    expect(duplicate).toEqual({
      status: 400,
      body: {
        code: 'invalid_parameter',
        message: 'malformed YAML body at line 3, column 1: map keys must be unique: a',
      },
    })
  })

  it('bounds YAML alias expansion (billion laughs)', async () => {
    const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for (let i = 1; i < 10; i++)
      laughs.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      )
    const res = await post('/doc', laughs.join('\n'), { 'Content-Type': 'application/yaml' })
    expect(res.status).toBe(400)
  })

  it('refuses unsupported content types with 415 and treats empty bodies as absent', async () => {
    expect((await post('/doc', '<a/>', { 'Content-Type': 'application/xml' })).status).toBe(415)
    expect(await post('/doc', '', { 'Content-Type': 'application/json' })).toEqual({
      status: 200,
      body: { doc: null },
    })
  })
})

describe('readBody over a real socket (the Node request stream path)', () => {
  it('reads bodies, answers 413 past the limit mid-stream, and inflates gzip', async () => {
    const { startServer } = await import('../../../core/http/serve.js')
    const app = echoApp()
    const server = await startServer({
      fetch: app.fetch,
      host: '127.0.0.1',
      port: 0,
      logger: createLogger({ level: 'silent' }),
      name: 'test',
    })
    try {
      // A stream body has no Content-Length, so only the streaming check can refuse it.
      const streamed = (size: number) =>
        fetch(`${server.url}/raw`, {
          method: 'POST',
          body: new ReadableStream({
            start(controller) {
              controller.enqueue(new Uint8Array(size))
              controller.close()
            },
          }),
          duplex: 'half',
        } as RequestInit)
      expect(await (await streamed(1000)).json()).toEqual({ bytes: 1000 })
      const refused = await streamed(limits.maxBytes * 4)
      expect(refused.status).toBe(413)
      const gz = await fetch(`${server.url}/raw`, {
        method: 'POST',
        body: gzipSync(Buffer.alloc(3000, 'b')),
        headers: { 'Content-Encoding': 'gzip' },
      })
      expect(await gz.json()).toEqual({ bytes: 3000 })
    } finally {
      await server.stop()
    }
  })
})

describe('readBodyText', () => {
  const invalid = Buffer.concat([Buffer.from('{"decision_id":"a'), Buffer.from([0xff]), Buffer.from('b"}')])

  it('refuses invalid UTF-8 with 400 naming the first bad byte, instead of rewriting it to U+FFFD', async () => {
    for (const path of ['/text', '/doc', '/logs']) {
      const res = await post(path, invalid, { 'Content-Type': 'application/json' })
      expect(res.status).toBe(400)
      expect(res.body.message).toBe('request body is not valid UTF-8 (byte 17: 0xff)')
    }
  })

  it.each([
    ['a lone continuation byte', [0x61, 0x80], 1],
    ['a truncated sequence at the end', [0x61, 0x62, 0xe2, 0x82], 2],
    ['an overlong encoding', [0xc0, 0xaf], 0],
    ['a UTF-16 surrogate', [0x61, 0xed, 0xa0, 0x80], 1],
  ])('refuses %s, gzip or not', async (_what, bytes, at) => {
    const body = Buffer.from(bytes)
    expect((await post('/text', body)).body.message).toContain(`(byte ${at}:`)
    const gz = await post('/text', gzipSync(body), { 'Content-Encoding': 'gzip' })
    expect(gz.status).toBe(400)
    expect(gz.body.message).toContain(`(byte ${at}:`)
  })

  it('reads valid UTF-8, and unlabelled gzip only where asked', async () => {
    expect(await post('/text', 'h\u00e9 \u{1f600}')).toEqual({
      status: 200,
      body: { text: 'h\u00e9 \u{1f600}' },
    })
    expect(await post('/logs', gzipSync('[{"a":"\u00e9"}]'))).toEqual({
      status: 200,
      body: { text: '[{"a":"\u00e9"}]' },
    })
    expect((await post('/text', gzipSync('[]'))).status).toBe(400)
  })
})
