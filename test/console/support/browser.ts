/**
 * Debian's Chromium driven by playwright-core, with the flags that work on this machine. Test
 * files call `chromiumProblem()` first and skip with its message when the browser is absent.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser, Page } from 'playwright-core'

export const CHROMIUM = process.env.REGENT_TEST_CHROMIUM ?? '/usr/bin/chromium'

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** Why the browser suite cannot run here, or undefined when it can. */
export function chromiumProblem(): string | undefined {
  if (!existsSync(CHROMIUM)) {
    return `no Chromium at ${CHROMIUM} (install Debian's chromium, or set REGENT_TEST_CHROMIUM): browser tests skipped`
  }
  return undefined
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core')
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS, timeout: 30_000 })
}

/** Where screenshots go: `test-results/console/` (not committed), for a reviewer to look at. */
export const SCREENSHOTS = fileURLToPath(new URL('../../../test-results/console', import.meta.url))

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true })
}

/** Signs in through the form with `token`. */
export async function signIn(page: Page, base: string, token: string): Promise<void> {
  await page.goto(`${base}/console/`)
  await page.getByLabel('API token or identity-provider token').fill(token)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await page.getByRole('navigation', { name: 'Views' }).waitFor()
}
