/**
 * `regent exec -c` when the decision-log service does not take the logs: exec exits after a
 * bounded flush whatever the service does (here: accepts connections and never answers), says on
 * stderr how many events were not delivered, and with `persistence_directory` keeps them in the
 * durable buffer so that the next run uploads them first. The real CLI runs as a child process.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Receiver } from '../../support/decision-log-receiver.js'
import { makeBundle } from '../../support/fault-upstream.js'
import { runRegent } from '../../support/run-cli.js'

const POLICY = 'package authz\n\ndefault allow := false\n\nallow if input.user == "alice"\n'

let dir: string
let receiver: Receiver
let silent: Server
const sockets = new Set<Socket>()

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'regent-exec-unreachable-'))
  writeFileSync(join(dir, 'a.json'), '{"user": "alice"}')
  writeFileSync(join(dir, 'b.json'), '{"user": "bob"}')
  writeFileSync(join(dir, 'authz.rego'), POLICY)
  receiver = new Receiver(await makeBundle({ revision: 'rev-1', modules: { 'authz.rego': POLICY } }))
  await receiver.start()
  // Accepts every connection and never answers.
  silent = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
})

afterAll(async () => {
  for (const socket of sockets) socket.destroy()
  await new Promise<void>((resolve) => silent?.close(() => resolve()))
  await receiver?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const decisionIds = (stdout: string) =>
  (JSON.parse(stdout) as { result: Array<{ decision_id?: string }> }).result.map((e) => e.decision_id)

describe('regent exec -c with a decision-log service that does not take the logs', () => {
  it('exits 0 after a bounded flush when the service never answers, and counts what was lost', async () => {
    const port = (silent.address() as { port: number }).port
    const path = join(dir, 'silent.yaml')
    writeFileSync(
      path,
      `services:\n  s:\n    url: http://127.0.0.1:${port}\ndecision_logs:\n  service: s\nstatus:\n  service: s\n`,
    )
    const started = Date.now()
    const { code, stdout, stderr } = await runRegent(
      ['exec', '-c', path, '-d', join(dir, 'authz.rego'), '--decision', 'authz/allow', join(dir, 'a.json')],
      { timeoutMs: 25_000 },
    )
    expect(Date.now() - started).toBeLessThan(15_000)
    expect(code).toBe(0)
    expect(decisionIds(stdout)).toHaveLength(1)
    expect(stderr).toMatch(/decision logs not delivered before exit; they are dropped.*"events":1/)
  }, 30_000)

  it('keeps undelivered decisions in persistence_directory and sends them on the next run', async () => {
    const withPersistence = join(dir, 'persisted.yaml')
    writeFileSync(
      withPersistence,
      `services:\n  acme:\n    url: ${receiver.url}\nbundles:\n  authz:\n    service: acme\n    resource: bundles/authz\ndecision_logs:\n  service: acme\npersistence_directory: ${join(dir, 'persisted')}\n`,
    )
    receiver.refuseLogs = true
    const first = await runRegent(
      ['exec', '-c', withPersistence, '--decision', 'authz/allow', join(dir, 'b.json')],
      { timeoutMs: 25_000 },
    )
    expect(first.code).toBe(0)
    expect(first.stderr).toContain('they wait in persistence_directory')
    expect(receiver.events).toHaveLength(0)
    receiver.refuseLogs = false
    const second = await runRegent([
      'exec',
      '-c',
      withPersistence,
      '--decision',
      'authz/allow',
      join(dir, 'a.json'),
    ])
    expect(second.code).toBe(0)
    expect(second.stderr).toBe('')
    const ids = [...decisionIds(first.stdout), ...decisionIds(second.stdout)]
    expect(ids.every((id) => typeof id === 'string')).toBe(true)
    expect(receiver.events.map((e) => e.decision_id).sort()).toEqual(ids.sort())
  }, 30_000)
})
