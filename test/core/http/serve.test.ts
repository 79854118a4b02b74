import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../../core/http/app.js'
import { parseAddress, startServer } from '../../../core/http/serve.js'
import { createLogger } from '../../../core/log.js'

const logger = createLogger({ level: 'silent' })

describe('startServer', () => {
  it('binds 127.0.0.1 on a free port and finishes an in-flight request when stopped', async () => {
    const app = createApp({ errorStyle: 'opa', logger })
    app.get('/slow', async (c) => {
      await new Promise((resolve) => setTimeout(resolve, 300))
      return c.json({ done: true })
    })
    const server = await startServer({ fetch: app.fetch, host: '127.0.0.1', port: 0, logger, name: 'test' })
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const inFlight = fetch(`${server.url}/slow`)
    await new Promise((resolve) => setTimeout(resolve, 50))
    const stopped = server.stop()
    const res = await inFlight
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ done: true })
    await stopped
    await expect(fetch(`${server.url}/slow`)).rejects.toThrow()
  })

  it('closes requests that outlive the grace period', async () => {
    const app = createApp({ errorStyle: 'opa', logger })
    app.get('/hang', () => new Promise<Response>(() => {}))
    const server = await startServer({
      fetch: app.fetch,
      host: '127.0.0.1',
      port: 0,
      logger,
      name: 'test',
      graceMs: 100,
    })
    const hanging = fetch(`${server.url}/hang`).catch((err: unknown) => err)
    await new Promise((resolve) => setTimeout(resolve, 50))
    const started = Date.now()
    await server.stop()
    expect(Date.now() - started).toBeLessThan(2000)
    expect(await hanging).toBeInstanceOf(Error)
  })
})

describe('stopOnSignals', () => {
  it('lets an in-flight request finish on SIGTERM, then exits 0', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/slow-server.ts'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const [url] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string]
    const inFlight = fetch(`${url}/slow?ms=500`)
    await new Promise((resolve) => setTimeout(resolve, 100))
    child.kill('SIGTERM')
    const res = await inFlight
    expect(await res.json()).toEqual({ done: true })
    const [code] = (await once(child, 'exit')) as [number]
    expect(code).toBe(0)
  })
})

describe('parseAddress', () => {
  it('reads host and port forms', () => {
    expect(parseAddress('127.0.0.1:8181')).toEqual({ host: '127.0.0.1', port: 8181 })
    expect(parseAddress(':9000')).toEqual({ host: '127.0.0.1', port: 9000 })
    expect(parseAddress('[::1]:80')).toEqual({ host: '::1', port: 80 })
    expect(() => parseAddress('localhost')).toThrow('expected HOST:PORT')
    expect(() => parseAddress('a:70000')).toThrow('expected HOST:PORT')
  })
})
