/**
 * `regent relay logs status|redrive --data-dir DIR` work without the relay's `-c` (the relay's
 * own start still demands it): `-c` used to be a commander "required" option of `relay`, which
 * commander also demands of every subcommand.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { BUFFER_FILE_NAME } from '../../relay/decision-logs/index.js'
import { DecisionBuffer } from '../../store/decision-buffer/index.js'
import { runRegent } from '../support/run-cli.js'

const dir = mkdtempSync(join(tmpdir(), 'regent-logs-data-dir-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('regent relay logs with only --data-dir', () => {
  it('reads the buffer in DIR; the relay itself still needs -c', async () => {
    const buffer = DecisionBuffer.open({
      path: join(dir, BUFFER_FILE_NAME),
      sync: 'normal',
      maxBytes: 1e9,
      overflow: 'backpressure',
      busyTimeoutMs: 1000,
      deadLetterMaxEvents: 1000,
      deadLetterMaxBytes: 1e9,
    })
    buffer.append([{ text: '{"decision_id":"a"}', decisionId: 'a', timestamp: null, agentId: null }])
    buffer.deadLetter(buffer.claim(1, 1e9)!, { status: 400, reason: 'bad', attempts: 1 })
    buffer.close()
    const [status, redrive, neither, relay] = await Promise.all([
      runRegent(['relay', 'logs', 'status', '--data-dir', dir, '-f', 'json']),
      runRegent(['relay', 'logs', 'redrive', '--data-dir', dir]),
      runRegent(['relay', 'logs', 'status']),
      runRegent(['relay']),
    ])
    expect(status.stderr).toBe('')
    expect(status.code).toBe(0)
    expect(JSON.parse(status.stdout)).toMatchObject({ path: join(dir, BUFFER_FILE_NAME) })
    expect(redrive.stderr).toBe('')
    expect(redrive.code).toBe(0)
    expect(neither.code).toBe(2)
    expect(neither.stderr).toMatch(/give the relay config \(-c FILE\) or --data-dir DIR/)
    expect(relay.code).toBe(2)
    expect(relay.stderr).toMatch(/required option '-c, --config <file>' not specified/)
  }, 40_000)
})
