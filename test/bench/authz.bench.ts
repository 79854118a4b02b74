/**
 * Authorization cost per request at 10 / 1,000 / 10,000 role bindings (SQLite):
 * - the decision alone (Authorizer.decide: route match, grant lookup, policy evaluation), p50
 *   and p99 µs, for a token bound to one system and for a user matched through a claim binding;
 * - the same HTTP request (GET /v1/systems/{id} as that token) on a service with authorization
 *   on, beside one with authorization switched off (the baseline): the median of ten
 *   alternating rounds' mean µs over sequential requests, as CPU time of this process (client and
 *   services run in it; CPU time is what a loaded machine does not inflate) and as wall time.
 * Run alone: npm run bench -- authz
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Agent, request } from 'undici'
import { parseConfig } from '../../core/config.js'
import { createLogger } from '../../core/log.js'
import { Authorizer } from '../../service/authz/authorizer.js'
import { type RunningService, serviceSectionSchema, startService } from '../../service/index.js'
import type { Principal } from '../../service/types.js'
import type { GrantSubject } from '../../store/service/index.js'

const ADMIN = 'bench-admin-token-0123456789'
const SIZES = [10, 1_000, 10_000]
const DECISIONS = 20_000
const REQUESTS = 2_000
const ROUNDS = 10
const SYSTEMS = 50
const logger = createLogger({ level: 'silent' })

interface Started {
  service: RunningService
  token: string
  cleanup(): Promise<void>
}

async function start(authorization: boolean): Promise<Started> {
  const dataDir = mkdtempSync(join(tmpdir(), 'regent-authz-bench-'))
  const service = await startService({
    config: parseConfig('{}', serviceSectionSchema),
    logger,
    addr: '127.0.0.1:0',
    dataDir,
    adminToken: ADMIN,
    graceMs: 200,
    authorization,
  })
  const headers = { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' }
  const created = await fetch(`${service.url}/v1/systems/s0`, {
    method: 'PUT',
    headers: { ...headers, 'If-None-Match': '*' },
    body: JSON.stringify({ name: 's0', type: 'custom' }),
  })
  if (!created.ok) throw new Error(`creating s0: ${created.status}`)
  const token = await fetch(`${service.url}/v1/tokens/bench`, { method: 'PUT', headers, body: '{}' })
  return {
    service,
    token: ((await token.json()) as { result: string }).result,
    async cleanup() {
      await service.stop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Writes `n` bindings: the bench token's (SystemViewer on s0), one claim binding, the rest other subjects. */
async function seed(service: RunningService, n: number): Promise<void> {
  const actor = { by: 'bench', through: 'bench' }
  await service.store.transaction(async (tx) => {
    for (let i = 0; i < n; i++) {
      let subjects: GrantSubject[] = [{ kind: i % 2 === 0 ? 'user' : 'token', id: `subject-${i}` }]
      let role = i % 3 === 0 ? 'SystemViewer' : 'SystemEditor'
      if (i === 0) [subjects, role] = [[{ kind: 'token', id: 'bench' }], 'SystemViewer']
      if (i === 1) subjects = [{ kind: 'claim', provider: '', key: 'groups', value: 'ops' }]
      await tx.grants.put(
        {
          id: `b-${i}`,
          name: `b-${i}`,
          description: '',
          role,
          resourceKind: 'system',
          resourceId: i < 2 ? 's0' : `s${i % SYSTEMS}`,
          subjects,
        },
        actor,
      )
    }
  })
}

function percentiles(samples: number[]): { p50: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b)
  return { p50: sorted[Math.floor(sorted.length * 0.5)]!, p99: sorted[Math.floor(sorted.length * 0.99)]! }
}

/** CPU µs this process spent since `start` (user + system): unlike wall time, not inflated by other processes. */
function cpuUs(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start)
  return used.user + used.system
}

function timeDecisions(authz: Authorizer, principal: Principal): { p50: number; p99: number; cpu: number } {
  const request = { method: 'GET', path: '/v1/systems/s0' }
  for (let i = 0; i < 2_000; i++) authz.decide(principal, request) // warm-up
  const samples: number[] = []
  const cpu0 = process.cpuUsage()
  for (let i = 0; i < DECISIONS; i++) {
    const t0 = performance.now()
    const d = authz.decide(principal, request)
    samples.push((performance.now() - t0) * 1000)
    if (!d.allowed) throw new Error('the benchmark request should be allowed')
  }
  return { ...percentiles(samples), cpu: cpuUs(cpu0) / DECISIONS }
}

/** Mean wall and CPU µs (client and server share this process) of `count` sequential requests. */
async function meanRequestUs(s: Started, count: number): Promise<{ wall: number; cpu: number }> {
  const url = `${s.service.url}/v1/systems/s0`
  const headers = { Authorization: `Bearer ${s.token}` }
  // A connection of its own per measurement: no idle keep-alive connection is reused across phases.
  const agent = new Agent({ connections: 1 })
  const get = async () => {
    const res = await request(url, { headers, dispatcher: agent })
    await res.body.arrayBuffer()
    if (res.statusCode !== 200) throw new Error(`GET /v1/systems/s0 answered ${res.statusCode}`)
  }
  try {
    for (let i = 0; i < 50; i++) await get()
    const t0 = performance.now()
    const cpu0 = process.cpuUsage()
    for (let i = 0; i < count; i++) await get()
    return { wall: ((performance.now() - t0) * 1000) / count, cpu: cpuUs(cpu0) / count }
  } finally {
    await agent.close()
  }
}

export async function run(): Promise<void> {
  const off = await start(false)
  try {
    for (const n of SIZES) {
      const on = await start(true)
      try {
        await seed(on.service, n)
        const authz = new Authorizer(on.service.store.grants)
        await authz.refresh()
        const token: Principal = { kind: 'token', id: 'bench', roles: new Set(), systemId: null }
        const user: Principal = {
          kind: 'user',
          id: 'someone',
          roles: new Set(),
          systemId: null,
          provider: 'corp',
          claims: { groups: ['dev', 'ops'], email: 'someone@example.com' },
        }
        const tokenCost = timeDecisions(authz, token)
        const userCost = timeDecisions(authz, user)
        // Alternating rounds, so a busy moment of the machine weighs on both sides alike.
        const onRounds: Array<{ wall: number; cpu: number }> = []
        const offRounds: Array<{ wall: number; cpu: number }> = []
        for (let round = 0; round < ROUNDS; round++) {
          onRounds.push(await meanRequestUs(on, REQUESTS / ROUNDS))
          offRounds.push(await meanRequestUs(off, REQUESTS / ROUNDS))
        }
        const median = (rounds: Array<{ wall: number; cpu: number }>, key: 'wall' | 'cpu') =>
          percentiles(rounds.map((r) => r[key])).p50
        const f = (x: number) => x.toFixed(1)
        const [onCpu, offCpu] = [median(onRounds, 'cpu'), median(offRounds, 'cpu')]
        const [onWall, offWall] = [median(onRounds, 'wall'), median(offRounds, 'wall')]
        console.log(
          `   ${String(n).padStart(6)} bindings: decision wall p50/p99 and CPU mean: token ` +
            `${f(tokenCost.p50)}/${f(tokenCost.p99)} µs, CPU ${f(tokenCost.cpu)} µs; claim user ` +
            `${f(userCost.p50)}/${f(userCost.p99)} µs, CPU ${f(userCost.cpu)} µs\n` +
            `          GET /v1/systems/s0 CPU per request ${f(onCpu)} µs with authorization, ${f(offCpu)} µs without ` +
            `(+${f(onCpu - offCpu)} µs); wall ${f(onWall)} vs ${f(offWall)} µs`,
        )
      } finally {
        await on.cleanup()
      }
    }
  } finally {
    await off.cleanup()
  }
}
