/**
 * `/console/`: the built console's files with a strict CSP, long caching for hashed assets,
 * revalidation of `index.html`, gzip, and no way to name a file that was not built.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { afterAll, describe, expect, it } from 'vitest'
import { CONSOLE_CSP, consoleRoutes } from '../../../service/routes/console.js'

const dir = mkdtempSync(join(tmpdir(), 'regent-console-assets-'))
mkdirSync(join(dir, 'assets'))
const script = `console.log(${JSON.stringify('x'.repeat(2000))})`
writeFileSync(
  join(dir, 'index.html'),
  '<!doctype html><script type="module" src="/console/assets/app-1.js"></script>',
)
writeFileSync(join(dir, 'assets', 'app-1.js'), script)
writeFileSync(join(tmpdir(), 'regent-console-outside.txt'), 'outside')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('console routes', () => {
  const app = consoleRoutes(dir)

  it('serves index.html at /console/ with the CSP, no-cache and security headers', async () => {
    const res = await app.request('/console/')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP)
    expect(CONSOLE_CSP).toContain("script-src 'self'")
    expect(CONSOLE_CSP).not.toContain('unsafe-inline')
    expect(res.headers.get('cache-control')).toBe('no-cache')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.headers.get('x-frame-options')).toBe('DENY')
    expect(await res.text()).toContain('app-1.js')
  })

  it('redirects /console to /console/', async () => {
    const res = await app.request('/console')
    expect(res.status).toBe(308)
    expect(res.headers.get('location')).toBe('/console/')
  })

  it('caches hashed assets for a year and answers 304 to a matching ETag', async () => {
    const res = await app.request('/console/assets/app-1.js')
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(await res.text()).toBe(script)
    const etag = res.headers.get('etag')!
    const again = await app.request('/console/assets/app-1.js', { headers: { 'If-None-Match': etag } })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
  })

  it('sends gzip when the client takes it', async () => {
    const res = await app.request('/console/assets/app-1.js', { headers: { 'Accept-Encoding': 'gzip, br' } })
    expect(res.headers.get('content-encoding')).toBe('gzip')
    const bytes = Buffer.from(await res.arrayBuffer())
    expect(bytes.length).toBeLessThan(script.length)
    expect(gunzipSync(bytes).toString()).toBe(script)
  })

  it('answers 404 for anything not built, including paths that climb out', async () => {
    for (const path of [
      '/console/missing.js',
      '/console/../regent-console-outside.txt',
      '/console/%2e%2e/regent-console-outside.txt',
      '/console/assets/../../regent-console-outside.txt',
      '/console/assets',
    ]) {
      const res = await app.request(path)
      expect(res.status, path).toBe(404)
      expect(await res.text()).not.toContain('outside')
    }
  })

  it('says how to build the console when it is not built', async () => {
    const res = await consoleRoutes(join(dir, 'absent')).request('/console/')
    expect(res.status).toBe(404)
    expect(await res.text()).toContain('npm run build:console')
  })
})
