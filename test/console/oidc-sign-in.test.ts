/**
 * Console sign-in through an identity provider, in a real Chromium: the "Sign in with …" button
 * goes to a fake OIDC provider on 127.0.0.1 and back with a code, the service exchanges it
 * (PKCE), and the user sees what the role binding on `user:alice` allows. A forged state and a
 * provider's `?error=` are refused with a message; a token the service stops accepting signs
 * the console out with a message.
 */
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from '../service/harness.js'
import { BACKENDS } from '../store/backends.js'
import { type FakeOidcProvider, startFakeOidcProvider } from '../support/fake-oidc-provider.js'
import { seriousViolations } from './support/accessibility.js'
import { chromiumProblem, launchChromium, screenshot, signIn } from './support/browser.js'
import { builtConsole } from './support/console-build.js'

const problem = chromiumProblem()
if (problem) console.warn(problem)
const CLIENT_ID = 'regent-console'

for (const backend of BACKENDS) {
  describe.skipIf(problem !== undefined || !backend.available)(
    `console OIDC sign-in on ${backend.name}`,
    () => {
      let service: TestService
      let idp: FakeOidcProvider
      let browser: Browser

      beforeAll(async () => {
        const dir = await builtConsole()
        idp = await startFakeOidcProvider({ clientId: CLIENT_ID, subject: 'alice' })
        service = await startTestService(
          backend,
          JSON.stringify({
            console: { dir },
            identity_providers: [
              {
                id: 'corp',
                issuer: idp.url,
                audience: CLIENT_ID,
                jwks_url: `${idp.url}/jwks.json`,
                console: { client_id: CLIENT_ID, display_name: 'Corp SSO' },
              },
            ],
          }),
        )
        browser = await launchChromium()
        expect(
          (await service.json('POST', '/v1/systems', { body: { name: 'oidc-demo', type: 'custom' } })).status,
        ).toBeLessThan(300)
        const binding = {
          resource_filter: { kind: 'workspace' },
          role_id: 'WorkspaceViewer',
          subjects: [{ kind: 'user', id: 'alice' }],
        }
        expect((await service.json('POST', '/v2/authz/rolebindings', { body: binding })).status).toBe(200)
      }, 120_000)

      afterAll(async () => {
        await browser?.close()
        await service?.close()
        await idp?.close()
      })

      /** Makes the provider's authorize endpoint answer with a redirect back carrying `params` instead. */
      const answerAuthorize = (page: Page, params: (state: string) => Record<string, string>) =>
        page.route(`${idp.url}/authorize?**`, (route) => {
          const asked = new URL(route.request().url())
          const back = new URL(asked.searchParams.get('redirect_uri')!)
          for (const [k, v] of Object.entries(params(asked.searchParams.get('state') ?? '')))
            back.searchParams.set(k, v)
          return route.fulfill({ status: 302, headers: { Location: back.toString() } })
        })

      it("signs in through the provider and shows what the user's binding allows", async () => {
        const page = await browser.newPage()
        const problems: string[] = []
        page.on('pageerror', (err) => problems.push(err.message))
        await page.goto(`${service.url}/console/`)
        const button = page.getByRole('button', { name: 'Sign in with Corp SSO' })
        await button.waitFor()
        expect(await seriousViolations(page)).toEqual([])
        await screenshot(page, `oidc-sign-in-${backend.name}`)
        await page.emulateMedia({ colorScheme: 'dark' })
        expect(await seriousViolations(page)).toEqual([])
        await page.setViewportSize({ width: 390, height: 844 })
        await screenshot(page, `oidc-sign-in-phone-dark-${backend.name}`)
        await page.emulateMedia({ colorScheme: 'light' })
        await page.setViewportSize({ width: 1280, height: 720 })

        await button.focus()
        await page.keyboard.press('Enter')
        await page.getByRole('navigation', { name: 'Views' }).waitFor()
        // The single-use code is gone from the address, and the kept bearer is alice's ID token.
        expect(page.url()).not.toContain('code=')
        expect(page.url()).not.toContain('state=')
        const token = (await page.evaluate("sessionStorage.getItem('regent.console.token')")) as string
        expect(JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString())).toMatchObject({
          sub: 'alice',
        })
        expect(await page.evaluate("sessionStorage.getItem('regent.console.oidc')")).toBeNull()
        expect(idp.exchanges.at(-1)).toBe('ok')

        await page.getByRole('link', { name: 'Systems' }).click()
        await page.getByRole('cell', { name: 'oidc-demo' }).first().waitFor()
        await screenshot(page, `oidc-signed-in-systems-${backend.name}`)
        expect(problems).toEqual([])
        await page.close()
      }, 90_000)

      it('refuses an answer whose state differs from the request, without exchanging its code', async () => {
        const page = await browser.newPage()
        const before = idp.exchanges.length
        await answerAuthorize(page, () => ({ code: 'stolen-code', state: 'forged-state' }))
        await page.goto(`${service.url}/console/`)
        await page.getByRole('button', { name: 'Sign in with Corp SSO' }).click()
        await expect
          .poll(() => page.getByRole('alert').textContent(), { timeout: 20_000 })
          .toContain('state differs')
        expect(page.url()).not.toContain('stolen-code')
        expect(idp.exchanges.length).toBe(before)
        await page.getByLabel('API token or identity-provider token').waitFor()
        await page.close()
      }, 60_000)

      it("shows the provider's refusal (?error=)", async () => {
        const page = await browser.newPage()
        await answerAuthorize(page, (state) => ({
          error: 'access_denied',
          error_description: 'User cancelled',
          state,
        }))
        await page.goto(`${service.url}/console/`)
        await page.getByRole('button', { name: 'Sign in with Corp SSO' }).click()
        await expect
          .poll(() => page.getByRole('alert').textContent(), { timeout: 20_000 })
          .toContain('refused the sign-in: access_denied (User cancelled)')
        await screenshot(page, `oidc-refused-${backend.name}`)
        expect(await seriousViolations(page)).toEqual([])
        await page.close()
      }, 60_000)

      it('signs out with a message when the service stops accepting the token', async () => {
        const created = await service.json<{ result: string }>('PUT', '/v1/tokens/short-lived', {
          body: { description: 'revoked during the test' },
        })
        expect(created.status).toBeLessThan(300)
        const page = await browser.newPage()
        await signIn(page, service.url, created.body.result)
        await page.waitForLoadState('networkidle')
        expect((await service.json('DELETE', '/v1/tokens/short-lived')).status).toBe(200)
        // The next call the console makes is refused (the first view's own refresh may come first).
        await page.evaluate("location.hash = '#/systems'")
        await expect
          .poll(() => page.getByRole('alert').textContent(), { timeout: 20_000 })
          .toContain('session has ended')
        expect(await page.evaluate("sessionStorage.getItem('regent.console.token')")).toBeNull()
        await page.close()
      }, 60_000)
    },
  )
}
