/**
 * `regent relay logs status` and `regent relay logs redrive`, run as a user would, on a buffer
 * file with pending and dead-lettered events.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BUFFER_FILE_NAME } from '../../relay/decision-logs/index.js'
import { DecisionBuffer, type DecisionBufferOptions } from '../../store/decision-buffer/index.js'
import { makeEvents } from '../support/logs-agent.js'
import { runRegent } from '../support/run-cli.js'

describe('regent relay logs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'regent-e2e-logs-cli-'))
  const storage = join(dir, 'storage')
  const configFile = join(dir, 'relay.yaml')
  const options: DecisionBufferOptions = {
    path: join(storage, BUFFER_FILE_NAME),
    sync: 'normal',
    maxBytes: 1e9,
    overflow: 'backpressure',
    busyTimeoutMs: 1000,
    deadLetterMaxEvents: 1000,
    deadLetterMaxBytes: 1e9,
  }
  const toEvent = (text: string) => ({ text, decisionId: null, timestamp: null, agentId: null })

  beforeAll(() => {
    mkdirSync(storage, { recursive: true })
    writeFileSync(configFile, `relay:\n  storage:\n    dir: ${storage}\n`)
    const buffer = DecisionBuffer.open(options)
    buffer.append(makeEvents('a', 0, 10, 300).map(toEvent))
    buffer.deadLetter(buffer.claim(3, 1e9)!, {
      status: 400,
      reason: 'upstream answered 400: bad',
      attempts: 5,
    })
    buffer.deadLetter(buffer.claim(2, 1e9)!, { status: 413, reason: 'too large', attempts: 1 })
    buffer.close()
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('shows pending and dead-lettered events as text and JSON, and says where there is no buffer', async () => {
    // Independent runs side by side: each CLI start costs seconds on a busy machine.
    const [text, json, missing] = await Promise.all([
      runRegent(['relay', 'logs', 'status', '-c', configFile]),
      runRegent(['relay', 'logs', 'status', '-c', configFile, '--format', 'json']),
      runRegent(['relay', 'logs', 'status', '-c', configFile, '--data-dir', join(dir, 'nowhere')]),
    ])
    expect(text.stderr).toBe('')
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/Pending: +5 events/)
    expect(text.stdout).toMatch(/Dead letter: +2 batches, 5 events/)
    expect(text.stdout).toMatch(/status 400 +after 5 attempts: upstream answered 400: bad/)
    const report = JSON.parse(json.stdout) as {
      events: number
      dead_letter: { batches: number; latest: Array<{ status: number }> }
    }
    expect(report.events).toBe(5)
    expect(report.dead_letter.batches).toBe(2)
    expect(report.dead_letter.latest.map((d) => d.status)).toEqual([413, 400])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/no decision-log buffer at/)
  }, 40_000)

  it('re-drives one dead batch by ID, refuses unknown IDs, then re-drives the rest', async () => {
    const buffer = DecisionBuffer.open({ ...options, integrityCheck: 'off' })
    const [newest, oldest] = buffer.listDeadBatches()
    buffer.close()
    const unknown = await runRegent(['relay', 'logs', 'redrive', '999', '-c', configFile])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/no dead batch 999/)
    const one = await runRegent(['relay', 'logs', 'redrive', String(oldest!.id), '-c', configFile])
    expect(one.code).toBe(0)
    expect(one.stdout).toMatch(/re-drove 1 batches \(3 events\)/)
    const rest = await runRegent(['relay', 'logs', 'redrive', '-c', configFile, '--data-dir', storage])
    expect(rest.stdout).toMatch(/re-drove 1 batches \(2 events\)/)
    const after = DecisionBuffer.open({ ...options, integrityCheck: 'off' })
    expect(after.stats()).toMatchObject({ events: 10, deadEvents: 0 })
    // Re-driven events come after what was pending: first the 5 never sent, then 0-2, then 3-4.
    const order = after.peek(10).map((t) => /"decision_id":"a-0*(\d+)"/.exec(t)![1])
    expect(order).toEqual(['5', '6', '7', '8', '9', '0', '1', '2', '3', '4'])
    after.close()
    expect(newest!.id).toBeGreaterThan(oldest!.id)
  }, 40_000)
})
