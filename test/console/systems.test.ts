/**
 * The Systems views in a real Chromium against a real service: the list links to a system's
 * page, which shows its status, its policy highlighted as Rego, its data, and the generated
 * configs with copy buttons; a viewer does not see the configs, and the API refuses them if forced.
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

const POLICY = `package authz

import rego.v1

# Alice may do anything.
default allow := false

allow if input.user == "alice"
`

for (const backend of BACKENDS) {
  describe.skipIf(problem !== undefined || !backend.available)(`console systems on ${backend.name}`, () => {
    let service: TestService
    let browser: Browser
    let systemId: string
    let brokenId: string

    beforeAll(async () => {
      const dir = await builtConsole()
      service = await startTestService(backend, JSON.stringify({ console: { dir } }))
      browser = await launchChromium()
      const created = await service.json<{ result: { id: string } }>('POST', '/v1/systems', {
        body: { name: 'tickets', type: 'custom', description: 'ticket desk' },
      })
      expect(created.status).toBe(200)
      systemId = created.body.result.id
      const pushed = await service.call('PUT', `/v1/policies/systems/${systemId}/rules`, {
        body: { modules: { 'authz.rego': POLICY } },
      })
      expect(pushed.status).toBe(200)
      const data = await service.call('PUT', `/v1/data/systems/${systemId}/users`, {
        body: { alice: { role: 'admin' } },
      })
      expect(data.status).toBe(200)
      // A datasource that fails: nothing listens on port 9 (discard) of the loopback address.
      const ds = await service.call('PUT', `/v1/datasources/systems/${systemId}/hr`, {
        body: { category: 'http', url: 'http://127.0.0.1:9/users' },
      })
      expect(ds.status).toBe(200)
      await service.call('POST', `/v1/datasources/systems/${systemId}/hr`)
      // A system whose bundle cannot build: two data documents collide (a value where the other
      // needs an object).
      const broken = await service.json<{ result: { id: string } }>('POST', '/v1/systems', {
        body: { name: 'broken', type: 'custom' },
      })
      brokenId = broken.body.result.id
      expect((await service.call('PUT', `/v1/data/systems/${brokenId}/a`, { body: 1 })).status).toBe(200)
      await service.call('PUT', `/v1/data/systems/${brokenId}/a/b`, { body: 2 })
      const status = await service.json<{ result: { status: string } }>('GET', `/v1/systems/${brokenId}`)
      expect(status.body.result.status).toBe('BundleBuildFailed')
    }, 120_000)

    afterAll(async () => {
      await browser?.close()
      await service?.close()
    })

    it('lists systems and shows one: status, highlighted policy, data, configs with copy buttons', async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 720 } })
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.url })
      const page = await context.newPage()
      const problems: string[] = []
      page.on('pageerror', (err) => problems.push(err.message))
      await signIn(page, service.url, ADMIN_TOKEN)
      await page.getByRole('link', { name: 'Systems' }).click()
      const link = page.getByRole('link', { name: 'tickets' })
      await link.waitFor()
      expect(await page.getByRole('row', { name: /tickets/ }).textContent()).toContain('Ready')
      // Not Ready, with the reason.
      const brokenRow = await page.getByRole('row', { name: /broken/ }).textContent()
      expect(brokenRow).toContain('BundleBuildFailed')
      expect(brokenRow).toMatch(/bundle: .+/)
      await screenshot(page, `systems-list-${backend.name}`)
      expect(await seriousViolations(page)).toEqual([])

      await link.click()
      await page.getByRole('heading', { name: 'tickets', level: 1 }).waitFor()
      expect(page.url()).toContain(`#/systems/${systemId}`)
      // The policy's source, highlighted by Prism's Rego grammar.
      const source = page.getByRole('region', { name: `systems/${systemId}/rules/authz.rego` })
      await source.locator('.token.keyword').first().waitFor()
      expect(await source.locator('.token.keyword').allTextContents()).toEqual(
        expect.arrayContaining(['package', 'import', 'default']),
      )
      expect(await source.locator('.token.comment').first().textContent()).toBe('# Alice may do anything.')
      expect(await source.locator('.token.string').first().textContent()).toBe('"alice"')
      expect(await source.textContent()).toBe(POLICY)
      await page.getByRole('region', { name: 'data of the system' }).getByText('"admin"').waitFor()
      // The failing datasource, with its error.
      const hr = page.getByRole('row', { name: new RegExp(`systems/${systemId}/hr`) })
      await hr.waitFor()
      expect(await hr.locator('.badge.bad').count()).toBe(1)
      expect(await hr.textContent()).toMatch(/error/i)

      // The configs hold the agent token: shown when asked, each with a copy button.
      await page.getByRole('button', { name: /Show configs/ }).click()
      const copy = page.getByRole('button', { name: 'Copy OPA agent config' })
      await copy.waitFor()
      await page.getByRole('button', { name: 'Copy regent relay config' }).waitFor()
      await copy.click()
      await page.getByRole('button', { name: 'Copied' }).waitFor()
      const expected = await (await service.call('GET', `/v1/systems/${systemId}/assets/opa-config`)).text()
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(expected)

      await screenshot(page, `system-detail-${backend.name}`)
      expect(await seriousViolations(page)).toEqual([])
      await page.emulateMedia({ colorScheme: 'dark' })
      expect(await seriousViolations(page)).toEqual([])
      await screenshot(page, `system-detail-dark-${backend.name}`)
      await page.setViewportSize({ width: 390, height: 844 })
      await screenshot(page, `system-detail-phone-${backend.name}`)
      expect(await seriousViolations(page)).toEqual([])
      expect(problems).toEqual([])
      await context.close()
    }, 120_000)

    it('hides the configs from a viewer, and the API refuses them when forced', async () => {
      const created = await service.json<{ result: string }>('PUT', '/v1/tokens/systems-viewer', { body: {} })
      const bound = await service.json('POST', '/v2/authz/rolebindings', {
        body: {
          id: 'systems-viewer-binding',
          resource_filter: { kind: 'system', id: systemId },
          role_id: 'SystemViewer',
          subjects: [{ kind: 'token', id: 'systems-viewer' }],
        },
      })
      expect(bound.status).toBe(200)
      const token = created.body.result
      const page = await browser.newPage()
      await signIn(page, service.url, token)
      await page.goto(`${service.url}/console/#/systems/${systemId}`)
      await page.getByRole('heading', { name: 'tickets', level: 1 }).waitFor()
      await page.getByText('do not let you read the generated configs').waitFor()
      expect(await page.getByRole('button', { name: /Show configs/ }).count()).toBe(0)
      // The policy is the viewer's to read.
      await page.locator('.rego-source .token.keyword').first().waitFor()
      const forced = await service.call('GET', `/v1/systems/${systemId}/assets/opa-config`, { token })
      expect(forced.status).toBe(403)
      expect(await seriousViolations(page)).toEqual([])
      await page.close()
    }, 60_000)
  })
}
