/**
 * The Activity view in a real Chromium against a real service: a change made through the API
 * appears after a refresh, linked to the system it changed; the class filter narrows the log and
 * is kept in the address.
 */
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, startTestService, type TestService } from '../service/harness.js'
import { BACKENDS } from '../store/backends.js'
import { seriousViolations } from './support/accessibility.js'
import { chromiumProblem, launchChromium, screenshot, signIn } from './support/browser.js'
import { builtConsole } from './support/console-build.js'

const problem = chromiumProblem()
if (problem) console.warn(problem)

for (const backend of BACKENDS) {
  describe.skipIf(problem !== undefined || !backend.available)(`console activity on ${backend.name}`, () => {
    let service: TestService
    let browser: Browser
    let systemId: string

    beforeAll(async () => {
      const dir = await builtConsole()
      service = await startTestService(backend, JSON.stringify({ console: { dir } }))
      browser = await launchChromium()
      const created = await service.json<{ result: { id: string } }>('POST', '/v1/systems', {
        body: { name: 'audited', type: 'custom' },
      })
      expect(created.status).toBe(200)
      systemId = created.body.result.id
    }, 120_000)

    afterAll(async () => {
      await browser?.close()
      await service?.close()
    })

    it('shows a change made through the API, linked to what it changed, and filters by class', async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 720 } })
      const problems: string[] = []
      page.on('pageerror', (err) => problems.push(err.message))
      await signIn(page, service.url, ADMIN_TOKEN)
      await page.getByRole('link', { name: 'Activity' }).click()
      await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor()
      await page.locator('tr[data-request]').first().waitFor()

      const changed = `/v1/data/systems/${systemId}/flags`
      const res = await service.call('PUT', changed, { body: { beta: true } })
      expect(res.status).toBe(200)
      const row = page.locator('tr[data-request]', { hasText: `PUT ${changed}` })
      await expect
        .poll(
          async () => {
            await page.getByRole('button', { name: 'Refresh' }).click()
            return row.count()
          },
          { timeout: 20_000, interval: 500 },
        )
        .toBe(1)
      expect(await row.textContent()).toContain('admin')
      const link = row.getByRole('link', { name: `system ${systemId}` })
      expect(await link.getAttribute('href')).toBe(`#/systems/${systemId}`)
      await screenshot(page, `activity-${backend.name}`)
      expect(await seriousViolations(page)).toEqual([])
      await page.emulateMedia({ colorScheme: 'dark' })
      expect(await seriousViolations(page)).toEqual([])
      await screenshot(page, `activity-dark-${backend.name}`)
      await page.emulateMedia({ colorScheme: 'light' })

      // Only changes and refusals: reads (the console's own GETs) leave the page.
      await page.getByLabel('Class').selectOption('audit')
      await page.getByRole('button', { name: 'Search' }).click()
      await expect.poll(() => page.url()).toContain('class=audit')
      await expect
        .poll(async () => {
          const texts = await page.locator('tr[data-request]').allTextContents()
          return texts.length > 0 && texts.every((t) => t.includes('audit') && !/\bGET \//.test(t))
        })
        .toBe(true)
      expect(await row.count()).toBe(1)

      await page.setViewportSize({ width: 390, height: 844 })
      await screenshot(page, `activity-phone-${backend.name}`)
      expect(await seriousViolations(page)).toEqual([])

      await link.click()
      await page.getByRole('heading', { name: 'audited', level: 1 }).waitFor()
      expect(problems).toEqual([])
      await page.close()
    }, 120_000)
  })
}
