/**
 * The Fleet view in a real Chromium against a real service and a real `regent relay` process:
 * the agent that stopped reporting is flagged stale and the failing one erroring, both ordered
 * first; the relay's agents appear behind it; the reader's stale threshold changes the verdict.
 */
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, startTestService, type TestService } from '../service/harness.js'
import { BACKENDS } from '../store/backends.js'
import { seriousViolations } from './support/accessibility.js'
import { chromiumProblem, launchChromium, screenshot, signIn } from './support/browser.js'
import { builtConsole } from './support/console-build.js'
import { type FleetFixture, GIT_COMMIT, startFleet } from './support/fleet-fixture.js'

const problem = chromiumProblem()
if (problem) console.warn(problem)

/** The agent ids of the fleet tables, in page order. */
const rowOrder = (page: Page) =>
  page.locator('tr[data-agent]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-agent')))

const badgesOf = (page: Page, agent: string) =>
  page.locator(`tr[data-agent="${agent}"] .badges .badge`).allTextContents()

for (const backend of BACKENDS) {
  describe.skipIf(problem !== undefined || !backend.available)(`console fleet on ${backend.name}`, () => {
    let service: TestService
    let browser: Browser
    let fleet: FleetFixture

    beforeAll(async () => {
      const dir = await builtConsole()
      service = await startTestService(backend, JSON.stringify({ console: { dir } }))
      fleet = await startFleet(service)
      browser = await launchChromium()
    }, 180_000)

    afterAll(async () => {
      await browser?.close()
      await fleet?.close()
      await service?.close()
    })

    it('flags the stale and the erroring agent, orders them first, and shows agents behind their relay', async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 720 } })
      const problems: string[] = []
      page.on('pageerror', (err) => problems.push(err.message))
      await signIn(page, service.url, ADMIN_TOKEN)
      // Fleet is the default view.
      await page.getByRole('heading', { name: 'Fleet', level: 1 }).waitFor()
      await page.locator('tr[data-agent="opa-direct-gone"]').waitFor()

      expect(await badgesOf(page, 'opa-direct-gone')).toEqual(['stale'])
      expect(await badgesOf(page, 'opa-edge-failing')).toEqual(['error'])
      expect(await badgesOf(page, 'opa-edge-ok')).toEqual(['ok'])
      expect(await badgesOf(page, 'opa-direct-ok')).toEqual(['ok'])
      // The system with a stale agent first; in each, the flagged agent first; the relay heads its
      // agents, ranked as its worst one.
      expect(await rowOrder(page)).toEqual([
        'opa-direct-gone',
        'opa-direct-ok',
        fleet.relayAgentId,
        'opa-edge-failing',
        'opa-edge-ok',
      ])
      const failing = page.locator('tr[data-agent="opa-edge-failing"]')
      expect(await failing.textContent()).toContain(
        'bundle_error: server replied with Service Unavailable (HTTP 503)',
      )
      expect(await page.locator('tr[data-agent="opa-edge-ok"] .behind-relay').count()).toBe(1)
      expect(await page.locator('tr[data-agent="opa-edge-ok"]').textContent()).toContain(
        `commit ${GIT_COMMIT.slice(0, 12)}`,
      )
      expect(await page.getByRole('link', { name: 'edge-payments' }).getAttribute('href')).toBe(
        `#/systems/${fleet.edgeId}`,
      )
      // Only the flagged agents, when asked.
      await page.getByLabel('Only stale or erroring agents').check()
      await expect.poll(() => rowOrder(page)).toEqual(['opa-direct-gone', 'opa-edge-failing'])
      expect(page.url()).toContain('flagged=1')
      await page.getByLabel('Only stale or erroring agents').uncheck()
      await expect.poll(async () => (await rowOrder(page)).length).toBe(5)
      await screenshot(page, `fleet-${backend.name}`)
      expect(await seriousViolations(page)).toEqual([])
      await page.emulateMedia({ colorScheme: 'dark' })
      expect(await seriousViolations(page)).toEqual([])
      await screenshot(page, `fleet-dark-${backend.name}`)

      // A threshold of an hour: the ten-minute-old report is no longer stale.
      await page.emulateMedia({ colorScheme: 'light' })
      await page.getByLabel('Stale after (seconds, or 5m, 2h)').fill('1h')
      await page.getByLabel('Stale after (seconds, or 5m, 2h)').press('Enter')
      await expect.poll(() => badgesOf(page, 'opa-direct-gone')).toEqual(['ok'])
      expect(page.url()).toContain('stale=1h')
      expect((await rowOrder(page))[0]).toBe(fleet.relayAgentId)

      await page.setViewportSize({ width: 390, height: 844 })
      await page.getByLabel('Stale after (seconds, or 5m, 2h)').fill('')
      await page.getByLabel('Stale after (seconds, or 5m, 2h)').press('Enter')
      await expect.poll(() => badgesOf(page, 'opa-direct-gone')).toEqual(['stale'])
      await screenshot(page, `fleet-phone-${backend.name}`)
      expect(await seriousViolations(page)).toEqual([])
      expect(problems).toEqual([])
      await page.close()
    }, 120_000)

    it("shows a viewer of one system only that system's agents", async () => {
      const created = await service.json<{ result: string }>('PUT', '/v1/tokens/fleet-viewer', { body: {} })
      expect(created.status).toBe(200)
      const bound = await service.json('POST', '/v2/authz/rolebindings', {
        body: {
          id: 'fleet-viewer-binding',
          resource_filter: { kind: 'system', id: fleet.directId },
          role_id: 'SystemViewer',
          subjects: [{ kind: 'token', id: 'fleet-viewer' }],
        },
      })
      expect(bound.status).toBe(200)
      const token = created.body.result
      const page = await browser.newPage()
      await signIn(page, service.url, token)
      // Its roles are on one system: the systems list names that one, and the fleet is its agents.
      await page.locator('tr[data-agent="opa-direct-gone"]').waitFor()
      expect((await rowOrder(page)).sort()).toEqual(['opa-direct-gone', 'opa-direct-ok'])
      // Naming systems narrows the view (and survives a reload through the address).
      await page.getByLabel('Only systems (ids, comma-separated)').fill(fleet.directId)
      await page.getByLabel('Only systems (ids, comma-separated)').press('Enter')
      await expect.poll(() => page.url()).toContain(`systems=${fleet.directId}`)
      expect((await rowOrder(page)).sort()).toEqual(['opa-direct-gone', 'opa-direct-ok'])
      await page.close()
    }, 60_000)
  })
}
