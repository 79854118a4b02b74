/**
 * Time from `git push` to an agent behind the relay activating the pushed commit, with real
 * processes (`regent service`, `regent relay`, a long-polling simulated agent): through the push
 * webhook, and through polling (`service.git.poll_interval: 1s`, so half a second of waiting on
 * average is part of the figure). Polling runs during the webhook rounds too; the webhook starts
 * its sync at once, so a poll rarely gets there first. Baseline in the same run: a `PUT /v1/policies` to a pushed system
 * reaching the agent the same way.
 */
import { createHmac } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { request } from 'undici'
import { eventually, tempDir } from '../relay/helpers.js'
import { type RegentProcess, startRegent } from '../relay/support/processes.js'
import { makeOrigin } from '../service/git/fixtures.js'
import { AgentSimulator } from '../support/agent-simulator.js'

const ADMIN = 'bench-admin-token-0123456789'
const SECRET = 'bench-webhook-secret-0123456789'
const ROUNDS = 5
const auth = { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' }

async function call(url: string, method: string, body?: unknown, headers: Record<string, string> = auth) {
  const res = await request(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.body.text()
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${text}`)
  return text === '' ? {} : (JSON.parse(text) as { result?: { id?: string } })
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

export async function run(): Promise<void> {
  const dir = await tempDir('regent-bench-git-relay-')
  const processes: RegentProcess[] = []
  try {
    const origin = makeOrigin(dir.dir, { 'rules/p.rego': 'package p\n\nx := 0\n' })
    const config = join(dir.dir, 'service.yaml')
    writeFileSync(config, `service:\n  git:\n    poll_interval: 1s\n    webhook_secret: ${SECRET}\n`)
    const service = await startRegent(
      ['service', '-c', config, '--addr', '127.0.0.1:0', '--data-dir', join(dir.dir, 'service')],
      { REGENT_ADMIN_TOKEN: ADMIN },
    )
    processes.push(service)
    const gitId = (
      await call(`${service.url}/v1/systems`, 'POST', {
        name: 'git',
        type: 'custom',
        source_control: {
          origin: {
            url: `file://${origin.bare}`,
            reference: 'main',
            commit: '',
            path: 'rules',
            credentials: '',
          },
        },
      })
    ).result!.id!
    const pushedId = (await call(`${service.url}/v1/systems`, 'POST', { name: 'pushed', type: 'custom' }))
      .result!.id!
    const agents: AgentSimulator[] = []
    const agentFor = async (id: string) => {
      const configText = await (
        await request(`${service.url}/v1/systems/${id}/assets/relay-config`, { headers: auth })
      ).body.text()
      writeFileSync(join(dir.dir, `relay-${id}.yaml`), configText)
      const relay = await startRegent([
        'relay',
        '-c',
        join(dir.dir, `relay-${id}.yaml`),
        '--addr',
        '127.0.0.1:0',
        '--data-dir',
        join(dir.dir, `relay-${id}`),
      ])
      processes.push(relay)
      const agent = new AgentSimulator({ url: `${relay.url}/v1/bundles/systems/${id}`, longPollSeconds: 30 })
      agents.push(agent)
      agent.start()
      await eventually(() => agent.revision !== undefined, 30_000, 'first activation')
      return agent
    }
    const gitAgent = await agentFor(gitId)
    const pushedAgent = await agentFor(pushedId)

    const measure = async (
      change: (i: number) => Promise<(revision: string) => boolean>,
      agent: AgentSimulator,
    ) => {
      const times: number[] = []
      for (let i = 0; i < ROUNDS; i++) {
        const started = performance.now()
        const reached = await change(i)
        await eventually(() => reached(agent.revision ?? ''), 30_000, 'revision at the agent')
        times.push(performance.now() - started)
      }
      return times
    }
    let n = 0
    const webhook = await measure(async () => {
      const commit = origin.push({ 'rules/p.rego': `package p\n\nx := ${++n}\n` })
      const body = JSON.stringify({ after: commit })
      const hooked = await request(`${service.url}/v1/systems/${gitId}/source-control/webhook`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'X-GitHub-Event': 'push',
          'X-Hub-Signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
        },
        body,
      })
      await hooked.body.dump()
      if (hooked.statusCode !== 202) throw new Error(`webhook answered ${hooked.statusCode}`)
      return (revision) => revision.startsWith(commit)
    }, gitAgent)
    const polled = await measure(async () => {
      const commit = origin.push({ 'rules/p.rego': `package p\n\nx := ${++n}\n` })
      return (revision) => revision.startsWith(commit)
    }, gitAgent)
    const push = await measure(async (i) => {
      const before = pushedAgent.revision
      await call(`${service.url}/v1/policies/systems/${pushedId}/p`, 'PUT', {
        modules: { 'p.rego': `package p\n\nx := ${i + 1}\n` },
      })
      return (revision) => revision !== before
    }, pushedAgent)
    for (const agent of agents) await agent.stop()
    const row = (name: string, times: number[]) =>
      console.log(
        `   ${name.padEnd(34)} p50 ${percentile(times, 50).toFixed(0).padStart(5)} ms   max ${Math.max(
          ...times,
        )
          .toFixed(0)
          .padStart(5)} ms`,
      )
    console.log(`   push → agent behind the relay (${ROUNDS} rounds each)`)
    row('git push + webhook', webhook)
    row('git push, polling every 1s', polled)
    row('baseline: PUT /v1/policies', push)
  } finally {
    for (const p of processes.reverse()) await p.stop()
    await dir.cleanup()
  }
}
