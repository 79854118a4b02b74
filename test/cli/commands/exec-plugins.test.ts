/**
 * `regent exec -c` runs the configured decision-log and status plugins as `opa exec` does: the real
 * CLI as a child process, against a small receiver on 127.0.0.1 that serves the bundle and records
 * the gzip'd `POST /logs` bodies and the `POST /status` reports. Each decision must arrive once,
 * with OPA's event fields; a status report must arrive; exec must exit after a bounded flush when
 * the service refuses the logs (exec-plugins-unreachable.test.ts: a service that never answers,
 * and a persistence_directory keeping the logs for the next run).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { Receiver } from '../../support/decision-log-receiver.js'
import { makeBundle } from '../../support/fault-upstream.js'
import { runRegent } from '../../support/run-cli.js'

const POLICY =
  'package authz\n\ndefault allow := false\n\nallow if input.user == "alice"\n\nreason := sprintf("user %s", [input.user])\n'

let dir: string
let receiver: Receiver

function config(extra = ''): string {
  const path = join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`)
  writeFileSync(
    path,
    `services:
  acme:
    url: ${receiver.url}
bundles:
  authz:
    service: acme
    resource: bundles/authz
labels:
  team: payments
decision_logs:
  service: acme
status:
  service: acme
${extra}`,
  )
  return path
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'regent-exec-plugins-'))
  mkdirSync(join(dir, 'inputs'))
  writeFileSync(join(dir, 'inputs', 'a.json'), '{"user": "alice", "big": 12345678901234567890}')
  writeFileSync(join(dir, 'inputs', 'b.json'), '{"user": "bob"}')
  receiver = new Receiver(await makeBundle({ revision: 'rev-7', modules: { 'authz.rego': POLICY } }))
  await receiver.start()
})

beforeEach(() => {
  receiver.events = []
  receiver.logTexts = []
  receiver.statuses = []
  receiver.logPosts = []
  receiver.refuseLogs = false
})

afterAll(async () => {
  await receiver?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const entries = (stdout: string) =>
  (JSON.parse(stdout) as { result: Array<{ decision_id?: string; path: string; result?: unknown }> }).result

describe('regent exec -c with decision_logs and status', () => {
  it('logs each decision once with OPA event fields and reports status', async () => {
    const { code, stdout, stderr } = await runRegent([
      'exec',
      '-c',
      config(),
      '--decision',
      'authz/allow',
      join(dir, 'inputs'),
    ])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const out = entries(stdout)
    expect(out.map((e) => e.result)).toEqual([true, false])

    expect(receiver.events).toHaveLength(2)
    expect(new Set(receiver.events.map((e) => e.decision_id))).toEqual(new Set(out.map((e) => e.decision_id)))
    for (const post of receiver.logPosts) {
      expect(post.encoding).toBe('gzip')
      expect(post.type).toBe('application/json')
    }
    const byUser = new Map(receiver.events.map((e) => [(e.input as { user: string }).user, e]))
    const alice = byUser.get('alice')!
    expect(alice.path).toBe('authz/allow')
    expect(alice.result).toBe(true)
    expect(alice.bundles).toEqual({ authz: { revision: 'rev-7' } })
    expect(alice.labels.team).toBe('payments')
    expect(alice.labels.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(typeof alice.labels.version).toBe('string')
    expect(Number.isNaN(Date.parse(alice.timestamp))).toBe(false)
    expect(byUser.get('bob')!.result).toBe(false)

    expect(receiver.statuses.length).toBeGreaterThan(0)
    const last = receiver.statuses.at(-1)!
    expect((last.labels as Record<string, string>).id).toBe(alice.labels.id)
    expect((last.plugins as Record<string, { state: string }>).decision_logs?.state).toBe('OK')
    expect(last.decision_logs).toEqual({})
    const bundle = (last.bundles as Record<string, Record<string, unknown>>).authz!
    expect(bundle).toMatchObject({ name: 'authz', active_revision: 'rev-7', type: 'snapshot' })
    expect(typeof bundle.last_successful_activation).toBe('string')
    expect((last.plugins as Record<string, { state: string }>).bundle?.state).toBe('OK')
  })

  it('logs an undefined decision without a result, and keeps the input numbers exact', async () => {
    const { code, stdout } = await runRegent([
      'exec',
      '-c',
      config(),
      '--decision',
      'authz/missing',
      join(dir, 'inputs', 'a.json'),
    ])
    expect(code).toBe(0)
    expect(entries(stdout)[0]).toMatchObject({ path: join(dir, 'inputs', 'a.json') })
    expect(receiver.events).toHaveLength(1)
    expect(receiver.events[0]!.path).toBe('authz/missing')
    expect('result' in receiver.events[0]!).toBe(false)
    expect(receiver.logTexts.join('')).toContain('"input":{"big":12345678901234567890,"user":"alice"}')
  })

  it('exits after a bounded flush when the service refuses the logs, and says so', async () => {
    receiver.refuseLogs = true
    const started = Date.now()
    const { code, stdout, stderr } = await runRegent(['exec', '-c', config(), join(dir, 'inputs')], {
      timeoutMs: 25_000,
    })
    expect(Date.now() - started).toBeLessThan(15_000)
    expect(code).toBe(0)
    expect(entries(stdout)).toHaveLength(2)
    expect(stderr).toContain('decision logs not delivered before exit; they are dropped')
    expect(receiver.events).toHaveLength(0)
    // The final status tells the service the logs failed.
    const last = receiver.statuses.at(-1) as { decision_logs?: { code?: string; http_code?: number } }
    expect(last.decision_logs).toMatchObject({ code: 'decision_logs_error', http_code: 503 })
  }, 30_000)

  it('reports -b bundles in the status and names their revisions in decision logs', async () => {
    const tarball = join(dir, 'local.tar.gz')
    writeFileSync(tarball, await makeBundle({ revision: 'local-3', modules: { 'authz.rego': POLICY } }))
    const folder = join(dir, 'extra')
    mkdirSync(folder, { recursive: true })
    writeFileSync(join(folder, 'extra.rego'), 'package extra\n\nx := 1\n')
    const path = join(dir, 'local-config.yaml')
    writeFileSync(
      path,
      `services:\n  acme:\n    url: ${receiver.url}\ndecision_logs:\n  service: acme\nstatus:\n  service: acme\n`,
    )
    const { code, stderr } = await runRegent([
      'exec',
      '-c',
      path,
      '-b',
      tarball,
      '-b',
      folder,
      '--decision',
      'authz/allow',
      join(dir, 'inputs', 'a.json'),
    ])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(receiver.events).toHaveLength(1)
    expect(receiver.events[0]!.bundles).toEqual({
      [tarball]: { revision: 'local-3' },
      [folder]: { revision: '' },
    })
    const last = receiver.statuses.at(-1)!
    const bundles = last.bundles as Record<string, Record<string, unknown>>
    expect(Object.keys(bundles).sort()).toEqual([tarball, folder].sort())
    expect(bundles[tarball]).toMatchObject({ name: tarball, active_revision: 'local-3', type: 'snapshot' })
    expect(Number.isNaN(Date.parse(String(bundles[tarball]!.last_successful_activation)))).toBe(false)
    // No revision in the folder's manifest: left out, as OPA's omitempty does.
    expect(bundles[folder]).not.toHaveProperty('active_revision')
    expect(typeof bundles[folder]!.last_successful_activation).toBe('string')
    expect((last.plugins as Record<string, { state: string }>).bundle?.state).toBe('OK')
  })

  it('refuses a decision_logs section naming an unknown service (exit 1)', async () => {
    const path = config().replace(/$/, '')
    writeFileSync(path, `services:\n  acme:\n    url: ${receiver.url}\ndecision_logs:\n  service: nope\n`)
    const { code, stdout, stderr } = await runRegent(['exec', '-c', path, join(dir, 'inputs')])
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toContain('decision_logs.service: no service named "nope"')
  })
})
