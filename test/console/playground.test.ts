/**
 * The console's Compile playground in Chromium against a real service: a system with a filter
 * policy compiles to the SQL a relay would answer for an input; the policy edited in the page to
 * use a built-in SQL cannot express shows the pe_fragment_error with the offending source line;
 * a parse error shows its line; a broken input is named before anything is sent. Axe-clean in
 * light and dark, at a laptop and a phone size.
 */
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from '../service/harness.js'
import { BACKENDS } from '../store/backends.js'
import { TICKETS_FILTER, TICKETS_FILTER_STORED } from '../support/tickets-filter.js'
import { seriousViolations } from './support/accessibility.js'
import { chromiumProblem, launchChromium, screenshot, signIn } from './support/browser.js'
import { builtConsole } from './support/console-build.js'

const problem = chromiumProblem()
if (problem) console.warn(problem)

const ADMIN = 'test-admin-token-0123456789'

for (const backend of BACKENDS) {
  describe.skipIf(problem !== undefined || !backend.available)(
    `console compile playground on ${backend.name}`,
    () => {
      let service: TestService
      let browser: Browser

      const expectAccessible = async (page: Page, name: string) => {
        await page.emulateMedia({ colorScheme: 'light' })
        await screenshot(page, `${name}-${backend.name}`)
        expect(await seriousViolations(page), `${name} light`).toEqual([])
        await page.emulateMedia({ colorScheme: 'dark' })
        await screenshot(page, `${name}-dark-${backend.name}`)
        expect(await seriousViolations(page), `${name} dark`).toEqual([])
        await page.emulateMedia({ colorScheme: 'light' })
      }

      beforeAll(async () => {
        const dir = await builtConsole()
        service = await startTestService(backend, JSON.stringify({ console: { dir } }))
        browser = await launchChromium()
        const made = await service.json('PUT', '/v1/systems/tickets', {
          body: { name: 'tickets', type: 'custom' },
          headers: { 'If-None-Match': '*' },
        })
        expect(made.status).toBe(200)
        const pushed = await service.json('PUT', '/v1/policies/systems/tickets/filters', {
          body: { modules: { 'filters.rego': TICKETS_FILTER } },
        })
        expect(pushed.status, JSON.stringify(pushed.body)).toBe(200)
        const data = await service.json('PUT', '/v1/data/systems/tickets/settings', {
          body: { show_public: true },
        })
        expect(data.status).toBe(200)
      }, 120_000)

      afterAll(async () => {
        await browser?.close()
        await service?.close()
      })

      /** The playground, signed in, with the system's module loaded and its filter rule offered. */
      async function openPlayground(): Promise<Page> {
        const page = await browser.newPage({ viewport: { width: 1280, height: 720 } })
        await signIn(page, service.url, ADMIN)
        await page.getByRole('link', { name: 'Compile playground' }).click()
        await page.getByRole('heading', { name: 'Compile playground' }).waitFor()
        await expect.poll(() => page.getByLabel('Module').inputValue()).toBe(TICKETS_FILTER_STORED)
        expect(await page.getByLabel('Rule path').inputValue()).toBe('filters/include')
        return page
      }

      it('shows the SQL a relay would answer for an input', async () => {
        const page = await openPlayground()
        expect(await page.getByLabel(/^Rego source/).inputValue()).toBe(TICKETS_FILTER)
        await page.getByLabel('Target').selectOption({ label: 'SQL: PostgreSQL' })
        await page.getByLabel('Input (JSON)').fill('{"user": "bob"}')
        await page.getByRole('button', { name: 'Compile' }).click()
        const sql = page.locator('pre.sql-query')
        await sql.waitFor()
        const text = (await sql.textContent()) ?? ''
        expect(text).toMatch(/^WHERE /)
        expect(text).toContain("E'bob'")
        expect(text).toContain('public')
        expect(await page.locator('.compile-result .badge').textContent()).toBe('HTTP 200')
        await expectAccessible(page, 'playground-sql')

        // Another target from the keyboard: UCAST as a tree, compiled with Ctrl+Enter.
        await page.getByLabel('Target').selectOption({ label: 'UCAST: all' })
        await page.getByLabel('Input (JSON)').press('Control+Enter')
        await page.getByRole('heading', { name: 'UCAST' }).waitFor()
        expect(await page.getByRole('region', { name: 'UCAST query' }).textContent()).toContain('"bob"')

        await page.setViewportSize({ width: 390, height: 844 })
        await screenshot(page, `playground-phone-${backend.name}`)
        expect(await seriousViolations(page), 'phone').toEqual([])
        await page.close()
      }, 120_000)

      it('shows a fragment error with the offending line, from the edited policy', async () => {
        const page = await openPlayground()
        const edited = TICKETS_FILTER.replace(
          'input.tickets.owner == input.user',
          'upper(input.tickets.owner) == input.user',
        )
        const editor = page.getByLabel(/^Rego source/)
        await editor.fill(edited)
        await page.getByLabel('Input (JSON)').fill('{"user": "bob"}')
        // Ctrl+Enter from the editor itself compiles.
        await editor.press('Control+Enter')
        const item = page.getByRole('list', { name: 'Compile errors' }).getByRole('listitem').first()
        await item.waitFor()
        expect(await item.textContent()).toContain('pe_fragment_error')
        expect(await item.getByRole('button', { name: /^Go to / }).textContent()).toMatch(
          new RegExp(`^${TICKETS_FILTER_STORED}:7:\\d+$`),
        )
        const quoted = (await item.locator('pre.error-line').textContent()) ?? ''
        const [line = '', marker = ''] = quoted.split('\n')
        expect(line).toBe('7 | include if upper(input.tickets.owner) == input.user')
        expect(marker).toMatch(/^ {2}\| +\^$/)
        // The stored policy is untouched: the edit went only to the playground.
        const stored = await service.json<{ result: { modules: Record<string, string> } }>(
          'GET',
          '/v1/policies/systems/tickets/filters',
        )
        expect(stored.body.result.modules['filters.rego']).toBe(TICKETS_FILTER)
        await expectAccessible(page, 'playground-fragment-error')

        // "Go to" puts the keyboard in the editor on that line.
        await item.getByRole('button', { name: /^Go to / }).click()
        await expect
          .poll(() =>
            // A string: the test project has no DOM types.
            page.evaluate(
              `(() => { const a = document.activeElement; return a && a.id === 'playground-source' ? a.value.slice(a.selectionStart, a.selectionEnd) : null })()`,
            ),
          )
          .toBe('include if upper(input.tickets.owner) == input.user')
        await page.close()
      }, 120_000)

      it('shows a parse error with its line, and names a broken input before sending it', async () => {
        const page = await openPlayground()
        const broken = 'package filters\n\ninclude if {\n\tinput.tickets.owner == == input.user\n}\n'
        await page.getByLabel(/^Rego source/).fill(broken)
        await page.getByRole('button', { name: 'Compile' }).click()
        const item = page.getByRole('list', { name: 'Compile errors' }).getByRole('listitem').first()
        await item.waitFor()
        expect(await item.textContent()).toContain('rego_parse_error')
        const where = (await item.getByRole('button', { name: /^Go to / }).textContent()) ?? ''
        const row = Number(/:(\d+):\d+$/.exec(where)?.[1])
        expect(where.startsWith(`${TICKETS_FILTER_STORED}:`)).toBe(true)
        const quoted = (await item.locator('pre.error-line').textContent()) ?? ''
        expect(quoted.split('\n')[0]).toBe(`${row} | ${broken.split('\n')[row - 1]}`)
        expect(row).toBe(4)
        await expectAccessible(page, 'playground-parse-error')

        await page.getByLabel('Input (JSON)').fill('{"user": bob}')
        await page.getByText(/^The input is not valid JSON/).waitFor()
        expect(await page.getByRole('button', { name: 'Compile' }).isDisabled()).toBe(true)
        expect(await page.getByLabel('Input (JSON)').getAttribute('aria-invalid')).toBe('true')
        await page.close()
      }, 120_000)
    },
  )
}
