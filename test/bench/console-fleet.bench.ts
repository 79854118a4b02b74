/**
 * The console's Fleet view with 1,000 agents (1,000 status reports across 20 systems) in
 * Chromium: time from navigation start to the fleet table rendered with every agent, beside a
 * baseline in the same run: the same load up to the console's frame (scripts loaded, signed in,
 * navigation drawn), which is what every view pays before its data. Also `GET /v1/fleet` alone,
 * and the size of the shipped assets (raw and gzip). Run: `npm run bench -- console-fleet`
 * (skipped without Chromium).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { chromiumProblem, launchChromium, signIn } from '../console/support/browser.js'
import { builtConsole } from '../console/support/console-build.js'
import { ADMIN_TOKEN, startTestService } from '../service/harness.js'
import { BACKENDS } from '../store/backends.js'

const AGENTS = 1000
const SYSTEMS = 20
const RUNS = 7

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`

function assetSizes(dir: string): string[] {
  const files: string[] = []
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name)
      if (statSync(path).isDirectory()) walk(path)
      else files.push(path)
    }
  }
  walk(dir)
  let raw = 0
  let gz = 0
  const lines = files.sort().map((f) => {
    const body = readFileSync(f)
    const zipped = gzipSync(body).length
    raw += body.length
    gz += zipped
    return `   ${f.slice(dir.length + 1).padEnd(36)} ${kb(body.length).padStart(10)} raw ${kb(zipped).padStart(10)} gzip`
  })
  return [...lines, `   ${'total'.padEnd(36)} ${kb(raw).padStart(10)} raw ${kb(gz).padStart(10)} gzip`]
}

export async function run(): Promise<void> {
  const problem = chromiumProblem()
  if (problem) {
    console.log(`   ${problem}`)
    return
  }
  const dir = await builtConsole()
  console.log('   shipped assets (dist of the console build):')
  for (const line of assetSizes(dir)) console.log(line)

  const service = await startTestService(BACKENDS[0]!, JSON.stringify({ console: { dir } }))
  const browser = await launchChromium()
  try {
    const ids: string[] = []
    for (let s = 0; s < SYSTEMS; s++) {
      const created = await service.json<{ result: { id: string } }>('POST', '/v1/systems', {
        body: { name: `fleet-${s}`, type: 'custom' },
      })
      ids.push(created.body.result.id)
    }
    for (let i = 0; i < AGENTS; i++) {
      const system = ids[i % SYSTEMS]!
      const failing = i % 97 === 0
      const res = await service.call('POST', '/v1/status', {
        body: {
          labels: { id: `opa-${i}`, version: '1.4.2', 'system-id': system },
          bundles: {
            [`systems/${system}`]: failing
              ? { name: `systems/${system}`, code: 'bundle_error', message: 'download failed' }
              : {
                  name: `systems/${system}`,
                  active_revision: `${'a'.repeat(40)}-${String(i).padStart(16, '0')}`,
                },
          },
          plugins: {
            bundle: { state: failing ? 'ERROR' : 'OK' },
            decision_logs: { state: 'OK' },
            status: { state: 'OK' },
          },
        },
      })
      if (res.status !== 200) throw new Error(`status post answered ${res.status}`)
      await res.arrayBuffer()
    }

    const api: number[] = []
    for (let r = 0; r < RUNS; r++) {
      const t0 = performance.now()
      const res = await service.call('GET', '/v1/fleet')
      await res.arrayBuffer()
      api.push(performance.now() - t0)
    }

    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } })
    // Injected through the DevTools protocol before the page's own scripts (the page's CSP does
    // not govern it): notes when the frame and the full fleet table appear, in ms since the
    // navigation started. Polled from here afterwards, so polling costs nothing in the figure.
    await page.addInitScript(`
      new MutationObserver(() => {
        const w = window
        if (w.__frameAt === undefined && document.querySelector('nav[aria-label="Views"]')) w.__frameAt = performance.now()
        if (w.__fleetAt === undefined && document.querySelectorAll('tr[data-agent]').length === ${AGENTS}) w.__fleetAt = performance.now()
      }).observe(document, { childList: true, subtree: true })
    `)
    await signIn(page, service.url, ADMIN_TOKEN)
    const frame: number[] = []
    const fleet: number[] = []
    const until = async (expr: string): Promise<number> => {
      const deadline = Date.now() + 60_000
      while (Date.now() < deadline) {
        const v = await page.evaluate(expr)
        if (typeof v === 'number') return v
        await new Promise((r) => setTimeout(r, 50))
      }
      throw new Error(`timed out waiting for ${expr}`)
    }
    for (let r = 0; r < RUNS; r++) {
      await page.goto('about:blank')
      await page.goto(`${service.url}/console/#/fleet`)
      frame.push(await until('window.__frameAt'))
      fleet.push(await until('window.__fleetAt'))
    }
    console.log(`   ${AGENTS} agents in ${SYSTEMS} systems, ${RUNS} loads (median, min):`)
    console.log(
      `   baseline: console frame drawn        ${median(frame).toFixed(0)} ms, ${Math.min(...frame).toFixed(0)} ms`,
    )
    console.log(
      `   fleet view rendered (all agents)     ${median(fleet).toFixed(0)} ms, ${Math.min(...fleet).toFixed(0)} ms`,
    )
    console.log(
      `   GET /v1/fleet from Node (no browser)  ${median(api).toFixed(0)} ms, ${Math.min(...api).toFixed(0)} ms`,
    )
    console.log(
      `   load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    )
  } finally {
    await browser.close()
    await service.close()
  }
}
