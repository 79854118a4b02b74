/**
 * The Decisions view in a real Chromium, against a real service (SQLite and PostgreSQL) whose
 * decisions arrive from a real `regent relay` process forwarding an agent's decision logs:
 * search by query and open one (its input and result shown), replay it against an edited
 * policy and see it flip, the chart's totals agree with the counts API, the live tail shows a
 * newly posted decision (and resumes after a pause), and a viewer sees no replay action and is
 * refused by the API if forcing it. axe-core clean in light and dark; screenshots at desktop
 * and phone sizes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse, stringify } from 'yaml'
import { type RegentProcess, startRegent } from '../relay/support/processes.js'
import { ADMIN_TOKEN, startTestService, type TestService } from '../service/harness.js'
import { BACKENDS } from '../store/backends.js'
import { postLogs } from '../support/logs-agent.js'
import { seriousViolations } from './support/accessibility.js'
import { chromiumProblem, launchChromium, screenshot, signIn } from './support/browser.js'
import { builtConsole } from './support/console-build.js'

const problem = chromiumProblem()
if (problem) console.warn(problem)

const SYSTEM = 'shop'
const POLICY = 'package authz\n\ndefault allow := false\n\nallow if input.user == "alice"\n'
const CANDIDATE = 'package authz\n\ndefault allow := false\n\nallow if input.user in {"alice", "bob"}\n'
const USERS = ['alice', 'bob', 'carol', 'alice', 'dave', 'bob']
const BIG_PLACEHOLDER = '__big_req_id__'
const BIG_REQ_ID = '18446744073709551615'

/** The event an OPA agent would log for `user` at `ageS` seconds ago. */
function agentEvent(id: string, user: string, ageS: number, agent = 'agent-7'): Record<string, unknown> {
  return {
    decision_id: id,
    path: 'authz/allow',
    input: { user, action: 'read' },
    result: user === 'alice',
    labels: { id: agent, version: '1.0.0' },
    bundles: { [SYSTEM]: { revision: 'rev-42' } },
    metrics: { timer_rego_query_eval_ns: 12345 },
    // Beyond 2^53: written into the text by logThroughRelay, shown exactly by the console.
    req_id: BIG_PLACEHOLDER,
    nd_builtin_cache: { 'time.now_ns': { '[]': 1700000000000000000 } },
    timestamp: new Date(Date.now() - ageS * 1000).toISOString(),
  }
}

for (const backend of BACKENDS) {
  describe.skipIf(problem !== undefined || !backend.available)(`console decisions on ${backend.name}`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-console-decisions-'))
    let service: TestService
    let relay: RegentProcess | undefined
    let browser: Browser
    let viewer: string

    /** Posts events to the relay as the agent does, and waits until the service stored them. */
    async function logThroughRelay(events: Array<Record<string, unknown>>): Promise<void> {
      const text = JSON.stringify(events).replaceAll(`"${BIG_PLACEHOLDER}"`, BIG_REQ_ID)
      const res = await postLogs(`${relay!.url}/v1/logs`, text, { gzip: false })
      expect(res.status, res.body).toBeLessThan(300)
      // Bounded wait (expect.poll is for tests only; this also runs in beforeAll).
      const deadline = Date.now() + 30_000
      for (const event of events) {
        const path = `/v1/decisions/${event.decision_id}?system=${SYSTEM}`
        while ((await service.call('GET', path)).status !== 200) {
          if (Date.now() > deadline)
            throw new Error(`decision ${event.decision_id} never reached the service`)
          await new Promise((r) => setTimeout(r, 100))
        }
      }
    }

    beforeAll(async () => {
      const consoleDir = await builtConsole()
      service = await startTestService(backend, JSON.stringify({ console: { dir: consoleDir } }))
      const created = await service.json('PUT', `/v1/systems/${SYSTEM}`, {
        body: { name: SYSTEM, type: 'custom' },
        headers: { 'If-None-Match': '*' },
      })
      expect(created.status).toBe(200)
      const policy = await service.json('PUT', `/v1/policies/systems/${SYSTEM}/rules`, {
        body: { modules: { 'authz.rego': POLICY } },
      })
      expect(policy.status).toBe(200)
      viewer = (await service.json('PUT', '/v1/tokens/console-viewer', { body: {} })).body.result as string
      const bound = await service.json('POST', '/v2/authz/rolebindings', {
        body: {
          resource_filter: { kind: 'workspace', id: '' },
          role_id: 'WorkspaceViewer',
          subjects: [{ kind: 'token', id: 'console-viewer' }],
        },
      })
      expect(bound.status).toBe(200)

      // The relay, configured as the service generates it for the system.
      const asset = await service.call('GET', `/v1/systems/${SYSTEM}/assets/relay-config`)
      expect(asset.status).toBe(200)
      const config = parse(await asset.text()) as { relay: Record<string, unknown> }
      config.relay.decision_logs = { retry: { min_delay_ms: 50, max_delay_ms: 500 } }
      const configFile = join(dir, 'relay.yaml')
      writeFileSync(configFile, stringify(config))
      relay = await startRegent([
        'relay',
        '-c',
        configFile,
        '--addr',
        '127.0.0.1:0',
        '--data-dir',
        join(dir, 'relay'),
      ])
      await logThroughRelay(USERS.map((user, i) => agentEvent(`d-${i}`, user, 60 + i * 30)))
      browser = await launchChromium()
    }, 180_000)

    afterAll(async () => {
      await browser?.close()
      await relay?.stop()
      await service?.close()
      rmSync(dir, { recursive: true, force: true })
    })

    async function openDecisions(token: string, query = ''): Promise<Page> {
      const page = await browser.newPage({ viewport: { width: 1280, height: 720 } })
      await signIn(page, service.url, token)
      await page.goto(`${service.url}/console/#/decisions${query}`)
      await page.getByRole('heading', { name: 'Decisions', level: 1 }).waitFor()
      return page
    }

    it('searches with the query language, keeps the search in the address, opens a decision and replays it', async () => {
      const page = await openDecisions(ADMIN_TOKEN)
      const problems: string[] = []
      page.on('pageerror', (err) => problems.push(err.message))
      await expect.poll(() => page.locator('table.decisions tbody tr').count()).toBe(USERS.length)

      await page.getByLabel('Search', { exact: true }).fill('input.user:bob')
      await page.getByLabel('Search', { exact: true }).press('Enter')
      await expect.poll(() => page.locator('table.decisions tbody tr').count()).toBe(2)
      expect(page.url()).toContain('q=input.user%3Abob')
      const rows = await page.locator('table.decisions tbody tr').allTextContents()
      for (const row of rows) expect(row).toMatch(/denied.*agent-7/)
      await screenshot(page, `decisions-search-${backend.name}`)
      expect(await seriousViolations(page)).toEqual([])
      await page.emulateMedia({ colorScheme: 'dark' })
      expect(await seriousViolations(page)).toEqual([])
      await screenshot(page, `decisions-search-dark-${backend.name}`)
      await page.emulateMedia({ colorScheme: 'light' })

      // The address is the search: a reload shows the same one.
      await page.reload()
      await expect.poll(() => page.locator('table.decisions tbody tr').count()).toBe(2)
      await expect.poll(() => page.getByLabel('Search', { exact: true }).inputValue()).toBe('input.user:bob')

      // Open the newest of bob's decisions (d-1 is newer than d-5).
      await page.getByRole('link', { name: /decision d-1$/ }).click()
      await page.getByRole('heading', { name: /Decision d-1/ }).waitFor()
      const input = page.getByRole('region', { name: 'Input' })
      await expect.poll(() => input.textContent()).toContain('"user": "bob"')
      expect(await page.getByRole('region', { name: 'Result' }).textContent()).toContain('false')
      expect(await page.getByRole('region', { name: 'nd_builtin_cache' }).textContent()).toContain(
        'time.now_ns',
      )
      expect(await page.getByRole('table', { name: 'Bundle revisions' }).textContent()).toContain('rev-42')
      expect(await page.getByRole('table', { name: 'Metrics' }).textContent()).toContain('12345')
      await page.getByText('The event as stored').click()
      expect(await page.getByRole('region', { name: 'Event as stored' }).textContent()).toContain(
        `"req_id": ${BIG_REQ_ID}`,
      )

      // Replay against an edited module: bob would now be allowed.
      await page.getByRole('heading', { name: 'Replay against…' }).waitFor()
      await expect
        .poll(() => page.getByLabel('Module to replace').inputValue())
        .toBe(`systems/${SYSTEM}/rules/authz.rego`)
      expect(await page.getByLabel('Candidate Rego').inputValue()).toBe(POLICY)
      await page.getByLabel('Candidate Rego').fill(CANDIDATE)
      await page.getByRole('button', { name: 'Replay this decision' }).click()
      const verdict = page.locator('.verdict')
      await expect.poll(() => verdict.textContent(), { timeout: 30_000 }).toContain('Would flip')
      expect(await verdict.textContent()).toContain('true')
      await screenshot(page, `decision-detail-${backend.name}`)
      expect(await seriousViolations(page)).toEqual([])
      await page.emulateMedia({ colorScheme: 'dark' })
      expect(await seriousViolations(page)).toEqual([])
      await screenshot(page, `decision-detail-dark-${backend.name}`)

      // The unchanged policy flips nothing.
      await page.getByLabel('Candidate Rego').fill(POLICY)
      await page.getByRole('button', { name: 'Replay this decision' }).click()
      await expect.poll(() => verdict.textContent(), { timeout: 30_000 }).toContain('Would not flip')

      await page.setViewportSize({ width: 390, height: 844 })
      await screenshot(page, `decision-detail-phone-${backend.name}`)
      expect(problems).toEqual([])
      await page.close()
    }, 120_000)

    it('charts the counts with the totals the counts API gives', async () => {
      const page = await openDecisions(ADMIN_TOKEN, '?range=24h')
      const total = page.locator('.totals dd[data-kind="TOTAL"]')
      await expect.poll(() => total.textContent()).toBe(String(USERS.length))
      const api = await service.json<{ result: { total: number; totals: Record<string, number> } }>(
        'GET',
        `/v1/decisions/counts?start_time=${new Date(Date.now() - 86_400_000).toISOString()}`,
      )
      expect(api.body.result.total).toBe(USERS.length)
      const allowed = USERS.filter((u) => u === 'alice').length
      expect(api.body.result.totals.ALLOWED).toBe(allowed)
      expect(await page.locator('.totals dd[data-kind="ALLOWED"]').textContent()).toBe(String(allowed))
      expect(await page.locator('.totals dd[data-kind="DENIED"]').textContent()).toBe(
        String(USERS.length - allowed),
      )
      expect(await page.locator('.chart-box canvas').count()).toBeGreaterThan(0)
      expect(await page.getByRole('img', { name: /6 decisions/ }).count()).toBe(1)
      await page.setViewportSize({ width: 390, height: 844 })
      await screenshot(page, `decisions-phone-${backend.name}`)
      expect(await seriousViolations(page)).toEqual([])
      await page.close()
    }, 60_000)

    it('shows a newly posted decision through the live tail, and again after a pause', async () => {
      const page = await openDecisions(ADMIN_TOKEN)
      await expect
        .poll(() => page.locator('table.decisions tbody tr').count())
        .toBeGreaterThanOrEqual(USERS.length)
      await logThroughRelay([agentEvent('late-1', 'erin', 0, 'agent-late')])
      await expect
        .poll(() => page.locator('table.decisions tbody tr.fresh').allTextContents(), { timeout: 15_000 })
        .toEqual([expect.stringContaining('agent-late')])
      await expect
        .poll(() => page.locator('.totals dd[data-kind="TOTAL"]').textContent(), { timeout: 20_000 })
        .toBe(String(USERS.length + 1))

      const pause = page.getByRole('button', { name: 'Pause live tail' })
      await pause.click()
      await page.getByRole('button', { name: 'Resume live tail' }).waitFor()
      expect(await page.getByRole('status').filter({ hasText: 'Live tail paused' }).count()).toBe(1)
      await logThroughRelay([agentEvent('late-2', 'frank', 0, 'agent-paused')])
      await page.getByRole('button', { name: 'Resume live tail' }).click()
      await expect
        .poll(() => page.locator('table.decisions tbody tr.fresh').count(), { timeout: 15_000 })
        .toBe(2)
      expect(await page.locator('table.decisions tbody tr').first().textContent()).toContain('agent-paused')
      await screenshot(page, `decisions-live-${backend.name}`)
      await page.close()
    }, 90_000)

    it('pages through older decisions with the cursor and back', async () => {
      // Runs after the tail test: 6 + 2 decisions so far, 50 more make two pages of 50.
      await logThroughRelay(
        Array.from({ length: 50 }, (_, i) => agentEvent(`bulk-${i}`, 'gina', 1 + i, 'agent-bulk')),
      )
      const page = await openDecisions(ADMIN_TOKEN, '?range=24h')
      const rows = page.locator('table.decisions tbody tr')
      await expect.poll(() => rows.count()).toBe(50)
      await page.getByRole('button', { name: 'Older decisions' }).click()
      await expect.poll(() => rows.count()).toBe(USERS.length + 2)
      expect(
        await page.getByRole('status').filter({ hasText: 'off while reading older pages' }).count(),
      ).toBe(1)
      expect(await page.getByRole('button', { name: 'Older decisions' }).isDisabled()).toBe(true)
      expect(await rows.last().textContent()).toContain('agent-7')
      await page.getByRole('button', { name: 'Newer decisions' }).click()
      await expect.poll(() => rows.count()).toBe(50)
      expect(await rows.first().textContent()).toContain('agent-bulk')
      await page.close()
    }, 90_000)

    it('hides the replay action from a viewer, whom the API refuses if forced', async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 720 } })
      await signIn(page, service.url, viewer)
      const asked = page.waitForResponse((r) => r.url().endsWith('/v1/authz/evaluation'))
      await page.goto(`${service.url}/console/#/decisions/d-1?system=${SYSTEM}`)
      const answer = await asked
      expect(((await answer.json()) as { result: Array<{ allowed: boolean }> }).result[0]!.allowed).toBe(
        false,
      )
      await expect.poll(() => page.getByRole('region', { name: 'Input' }).textContent()).toContain('bob')
      expect(await page.getByRole('heading', { name: 'Replay against…' }).count()).toBe(0)
      expect(await page.getByRole('button', { name: 'Replay this decision' }).count()).toBe(0)
      await screenshot(page, `decision-detail-viewer-${backend.name}`)

      const forced = await service.json('POST', '/v1/logreplay', {
        token: viewer,
        body: {
          system: SYSTEM,
          decision_id: 'd-1',
          modules: { [`systems/${SYSTEM}/rules/authz.rego`]: CANDIDATE },
        },
      })
      expect(forced.status).toBe(403)
      await page.close()
    }, 60_000)
  })
}
