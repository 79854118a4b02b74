/**
 * `regent login` through the console: the command line prints the service's `/cli-sign-in` link,
 * the browser signs in and confirms, and the command line receives the token, checks it and
 * stores it (0600). A malformed link sends nothing; cancelling sends nothing.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, startTestService, type TestService } from '../service/harness.js'
import { BACKENDS } from '../store/backends.js'
import { REGENT_BIN } from '../support/run-cli.js'
import { seriousViolations } from './support/accessibility.js'
import { chromiumProblem, launchChromium, screenshot, signIn } from './support/browser.js'
import { builtConsole } from './support/console-build.js'

const problem = chromiumProblem()
if (problem) console.warn(problem)
const sqlite = BACKENDS.find((b) => b.name === 'sqlite')!

describe.skipIf(problem !== undefined)('regent login through the console', () => {
  let service: TestService
  let browser: Browser
  const home = mkdtempSync(join(tmpdir(), 'regent-cli-sign-in-'))

  beforeAll(async () => {
    const dir = await builtConsole()
    service = await startTestService(sqlite, JSON.stringify({ console: { dir } }))
    browser = await launchChromium()
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await service?.close()
    rmSync(home, { recursive: true, force: true })
  })

  /** Starts `regent login --no-open` and resolves to the link it prints and its exit. */
  function startLogin(session: string) {
    const child = spawn(
      process.execPath,
      [REGENT_BIN, 'login', '--no-open', '--url', service.url, '--styra-config', session, '--timeout', '60s'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let output = ''
    const link = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no sign-in link: ${output}`)), 30_000)
      const read = (chunk: Buffer) => {
        output += chunk
        const match = /(http:\/\/\S+\/cli-sign-in\?\S+)/.exec(output)
        if (match) {
          clearTimeout(timer)
          resolve(match[1]!)
        }
      }
      child.stdout.on('data', read)
      child.stderr.on('data', read)
    })
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    return { link, exited, kill: () => child.kill('SIGTERM'), output: () => output }
  }

  it('hands the signed-in token to the waiting command line after confirmation', async () => {
    const session = join(home, 'ok.yaml')
    const login = startLogin(session)
    const link = await login.link
    expect(new URL(link).origin).toBe(new URL(service.url).origin)

    const page = await browser.newPage()
    await page.goto(link)
    // Not signed in yet: the sign-in form first, then the confirmation.
    await page.getByLabel('API token or identity-provider token').fill(ADMIN_TOKEN)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.getByRole('heading', { name: 'Sign in the regent command line?' }).waitFor()
    await screenshot(page, 'cli-sign-in')
    expect(await seriousViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'Sign in the command line' }).click()
    await page.getByText('regent is signed in').waitFor()
    await page.close()

    expect(await login.exited, login.output()).toBe(0)
    expect(readFileSync(session, 'utf8')).toContain(ADMIN_TOKEN)
    expect(statSync(session).mode & 0o777).toBe(0o600)
  }, 90_000)

  it('sends nothing for a malformed link or when cancelled', async () => {
    const page = await browser.newPage()
    await signIn(page, service.url, ADMIN_TOKEN)
    await page.goto(`${service.url}/cli-sign-in?callback=not-a-port&state=x`)
    await page.getByRole('alert').waitFor()
    expect(await page.getByRole('alert').textContent()).toContain('malformed')
    expect(page.url()).toContain('/cli-sign-in')

    const session = join(home, 'cancelled.yaml')
    const login = startLogin(session)
    await page.goto(await login.link)
    await page.getByRole('button', { name: 'Cancel' }).click()
    await page.getByRole('navigation', { name: 'Views' }).waitFor()
    expect(page.url()).not.toContain('127.0.0.1:' + new URL(await login.link).searchParams.get('callback'))
    login.kill()
    await login.exited
    expect(() => statSync(session)).toThrow()
    await page.close()
  }, 90_000)
})
