/**
 * End to end with real processes: a commit pushed to a git repository reaches an agent behind the
 * relay. `regent service` builds a system from a bare repository (file://), a GitHub-style push
 * webhook makes it sync, the relay passes the new bundle on, and the long-polling agent activates
 * a revision that starts with the pushed commit. A broken commit never reaches the agent.
 */
import { createHmac } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually, tempDir } from '../relay/helpers.js'
import { type RegentProcess, startRegent } from '../relay/support/processes.js'
import { makeOrigin, type Origin } from '../service/git/fixtures.js'
import { AgentSimulator } from '../support/agent-simulator.js'

const ADMIN = 'e2e-admin-token-0123456789'
const SECRET = 'e2e-webhook-secret-0123456789'
const auth = { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' }

describe('a git push reaches the agents behind a relay (real processes)', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>
  let service: RegentProcess | undefined
  let relay: RegentProcess | undefined
  let origin: Origin
  let systemId: string

  async function webhook(commit: string) {
    const body = JSON.stringify({ ref: 'refs/heads/main', after: commit })
    const res = await request(`${service!.url}/v1/systems/${systemId}/source-control/webhook`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-GitHub-Event': 'push',
        'X-Hub-Signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
      },
      body,
    })
    expect(res.statusCode).toBe(202)
    await res.body.dump()
  }

  async function status(): Promise<string> {
    const res = await request(`${service!.url}/v1/systems/${systemId}`, { headers: auth })
    return ((await res.body.json()) as { result: { status: string } }).result.status
  }

  beforeAll(async () => {
    dir = await tempDir('regent-e2e-git-')
    origin = makeOrigin(dir.dir, {
      'rules/filters.rego': 'package filters\n\ninclude if input.user == "alice"\n',
    })
    const config = join(dir.dir, 'service.yaml')
    writeFileSync(config, `service:\n  git:\n    poll_interval: "0"\n    webhook_secret: ${SECRET}\n`)
    service = await startRegent(
      ['service', '-c', config, '--addr', '127.0.0.1:0', '--data-dir', join(dir.dir, 'service')],
      { REGENT_ADMIN_TOKEN: ADMIN },
    )
    const created = await request(`${service.url}/v1/systems`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        name: 'from-git',
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
      }),
    })
    expect(created.statusCode).toBe(200)
    systemId = ((await created.body.json()) as { result: { id: string } }).result.id
    const asset = await request(`${service.url}/v1/systems/${systemId}/assets/relay-config`, {
      headers: auth,
    })
    expect(asset.statusCode).toBe(200)
    writeFileSync(join(dir.dir, 'relay.yaml'), await asset.body.text())
  }, 60_000)

  afterAll(async () => {
    await relay?.stop()
    await service?.stop()
    await dir?.cleanup()
  })

  it('moves the agent to each good commit and keeps it on the last good one across a broken commit', async () => {
    relay = await startRegent([
      'relay',
      '-c',
      join(dir.dir, 'relay.yaml'),
      '--addr',
      '127.0.0.1:0',
      '--data-dir',
      join(dir.dir, 'relay'),
    ])
    const agent = new AgentSimulator({
      url: `${relay.url}/v1/bundles/systems/${systemId}`,
      longPollSeconds: 30,
    })
    agent.start()
    try {
      const first = origin.push({})
      await webhook(first)
      await eventually(() => agent.revision?.startsWith(first) === true, 20_000, 'first commit at the agent')

      const second = origin.push({
        'rules/filters.rego': 'package filters\n\ninclude if input.user == "bob"\n',
      })
      await webhook(second)
      await eventually(
        () => agent.revision?.startsWith(second) === true,
        20_000,
        'second commit at the agent',
      )

      const broken = origin.push({ 'rules/filters.rego': 'package filters\n\ninclude if {\n' })
      await webhook(broken)
      await eventually(async () => (await status()) === 'BundleBuildFailed', 20_000, 'broken commit reported')
      expect(agent.revision?.startsWith(second)).toBe(true)

      const fixed = origin.push({
        'rules/filters.rego': 'package filters\n\ninclude if input.user == "carol"\n',
      })
      await webhook(fixed)
      await eventually(() => agent.revision?.startsWith(fixed) === true, 20_000, 'fixed commit at the agent')
      expect(await status()).toBe('Ready')
    } finally {
      await agent.stop()
    }
  }, 120_000)
})
