/**
 * The console's Datasources and Access views in Chromium against a real service: a failing
 * datasource is listed first with its error, its page runs it on demand for an owner; a system's
 * viewer sees neither the run button nor the binding controls, and the API refuses both when
 * forced. An administrator grants the viewer its role from the Access view.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from '../service/harness.js'
import { BACKENDS } from '../store/backends.js'
import { seriousViolations } from './support/accessibility.js'
import { chromiumProblem, launchChromium, screenshot, signIn } from './support/browser.js'
import { builtConsole } from './support/console-build.js'

const problem = chromiumProblem()
if (problem) console.warn(problem)

/** A source whose `/users` answers JSON and `/broken` 500. */
async function startSource(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.url === '/users') {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify({ alice: { role: 'admin' } }))
      return
    }
    res.writeHead(500, { 'Content-Type': 'text/plain' })
    res.end('upstream broke')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
}

for (const backend of BACKENDS) {
  describe.skipIf(problem !== undefined || !backend.available)(
    `console datasources and access on ${backend.name}`,
    () => {
      let service: TestService
      let browser: Browser
      let source: { url: string; server: Server }
      let viewerToken: string

      const expectAccessible = async (page: Page, name: string) => {
        await screenshot(page, `${name}-${backend.name}`)
        expect(await seriousViolations(page), name).toEqual([])
      }

      beforeAll(async () => {
        const dir = await builtConsole()
        source = await startSource()
        service = await startTestService(backend, JSON.stringify({ console: { dir } }))
        browser = await launchChromium()
        const system = await service.json('PUT', '/v1/systems/shop', {
          body: { name: 'shop', type: 'custom' },
          headers: { 'If-None-Match': '*' },
        })
        expect(system.status).toBe(200)
        for (const [name, path] of [
          ['users', '/users'],
          ['orders', '/broken'],
        ]) {
          const put = await service.json('PUT', `/v1/datasources/systems/shop/${name}`, {
            body: { category: 'http', url: `${source.url}${path}`, polling_interval: '1h' },
          })
          expect(put.status, JSON.stringify(put.body)).toBe(200)
          await service.json('POST', `/v1/datasources/systems/shop/${name}`)
        }
        const made = await service.json<{ result: string }>('PUT', '/v1/tokens/shop-viewer', {
          body: { description: 'reads the shop' },
        })
        viewerToken = made.body.result
      }, 120_000)

      afterAll(async () => {
        await browser?.close()
        await service?.close()
        await new Promise((resolve) => source?.server.close(resolve))
      })

      it('lists the failing datasource first and runs one on demand', async () => {
        const page = await browser.newPage()
        await signIn(page, service.url, 'test-admin-token-0123456789')
        await page.getByRole('link', { name: 'Datasources' }).click()
        const rows = page.locator('tbody tr')
        await rows.first().waitFor()
        await expect.poll(() => rows.count()).toBe(2)
        expect(await rows.nth(0).textContent()).toContain('systems/shop/orders')
        expect(await rows.nth(0).textContent()).toContain('error')
        expect(await rows.nth(0).textContent()).toContain('500')
        expect(await rows.nth(1).textContent()).toContain('ok')
        await expectAccessible(page, 'datasources')

        await page.getByRole('link', { name: 'systems/shop/users' }).click()
        await page.getByRole('heading', { name: 'systems/shop/users' }).waitFor()
        expect(await page.getByRole('region', { name: 'Datasource configuration' }).textContent()).toContain(
          `${source.url}/users`,
        )
        const before = await service.json<{ result: { status: { last_attempt: string } } }>(
          'GET',
          '/v1/datasources/systems/shop/users',
        )
        await page.getByRole('button', { name: 'Run now' }).click()
        await expect
          .poll(async () => {
            const now = await service.json<{ result: { status: { last_attempt: string } } }>(
              'GET',
              '/v1/datasources/systems/shop/users',
            )
            return now.body.result.status.last_attempt > before.body.result.status.last_attempt
          })
          .toBe(true)
        await expectAccessible(page, 'datasource-detail')
        await page.close()
      }, 90_000)

      it('grants a role from the Access view; the viewer sees no controls and the API refuses them', async () => {
        const admin = await browser.newPage()
        await signIn(admin, service.url, 'test-admin-token-0123456789')
        await admin.goto(`${service.url}/console/#/access/systems/shop`)
        await admin.getByRole('heading', { name: 'Add a role binding' }).waitFor()
        await admin.getByLabel('Binding name').fill('shop-viewers')
        await admin.getByLabel('Role', { exact: true }).selectOption('SystemViewer')
        await admin.getByLabel(/^Subjects/).fill('token:shop-viewer')
        await admin.getByRole('button', { name: 'Add binding' }).click()
        await admin.getByRole('cell', { name: 'token:shop-viewer' }).waitFor()
        await expectAccessible(admin, 'access-admin')
        await admin.close()

        const viewer = await browser.newPage()
        await signIn(viewer, service.url, viewerToken)
        await viewer.goto(`${service.url}/console/#/access/systems/shop`)
        await viewer.getByRole('cell', { name: 'token:shop-viewer' }).waitFor()
        // Give the permission answers time to arrive before asserting what is absent.
        await viewer.waitForLoadState('networkidle')
        expect(await viewer.getByRole('button', { name: /Remove binding/ }).count()).toBe(0)
        expect(await viewer.getByRole('heading', { name: 'Add a role binding' }).count()).toBe(0)
        await expectAccessible(viewer, 'access-viewer')

        await viewer.goto(`${service.url}/console/#/datasources/systems/shop/users`)
        await viewer.getByRole('heading', { name: 'systems/shop/users' }).waitFor()
        await viewer.waitForLoadState('networkidle')
        expect(await viewer.getByRole('button', { name: 'Run now' }).count()).toBe(0)
        await viewer.close()

        // Forced: the API refuses what the console hid.
        const run = await service.json('POST', '/v1/datasources/systems/shop/users', { token: viewerToken })
        expect(run.status).toBe(403)
        const remove = await service.json('DELETE', '/v1/authz/rolebindings/systems/shop/shop-viewers', {
          token: viewerToken,
        })
        expect(remove.status).toBe(403)
      }, 90_000)
    },
  )
}
