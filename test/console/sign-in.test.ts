/**
 * The console in a real Chromium against a real service: the page loads under its strict CSP
 * with no console errors, a wrong token is refused, the right one signs in and the views show
 * what the API returns; sign-out forgets the token.
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
  describe.skipIf(problem !== undefined || !backend.available)(`console sign-in on ${backend.name}`, () => {
    let service: TestService
    let browser: Browser

    beforeAll(async () => {
      const dir = await builtConsole()
      service = await startTestService(backend, JSON.stringify({ console: { dir } }))
      browser = await launchChromium()
      const created = await service.json('POST', '/v1/systems', {
        body: { name: 'console-demo', type: 'custom' },
      })
      expect(created.status).toBeLessThan(300)
    }, 120_000)

    afterAll(async () => {
      await browser?.close()
      await service?.close()
    })

    it('refuses a wrong token and signs in with a valid one', async () => {
      const page = await browser.newPage()
      const problems: string[] = []
      page.on('console', (msg) => msg.type() === 'error' && problems.push(msg.text()))
      page.on('pageerror', (err) => problems.push(err.message))

      await page.goto(`${service.url}/console/`)
      await page.getByLabel('API token or identity-provider token').fill('not-a-token-0123456789')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('does not accept this token')
      await screenshot(page, `sign-in-refused-${backend.name}`)
      expect(await seriousViolations(page)).toEqual([])

      await signIn(page, service.url, ADMIN_TOKEN)
      await page.getByRole('link', { name: 'Systems' }).click()
      await page.getByRole('cell', { name: 'console-demo' }).first().waitFor()
      await screenshot(page, `systems-${backend.name}`)
      expect(await seriousViolations(page)).toEqual([])
      await page.emulateMedia({ colorScheme: 'dark' })
      expect(await seriousViolations(page)).toEqual([])
      await screenshot(page, `systems-dark-${backend.name}`)
      // The refused sign-in's 401 is logged by the browser as a failed resource; nothing else.
      expect(problems.filter((p) => !p.includes('401'))).toEqual([])

      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.getByLabel('API token or identity-provider token').waitFor()
      expect(await page.evaluate('sessionStorage.length')).toBe(0)
      await page.close()
    }, 60_000)
  })
}
