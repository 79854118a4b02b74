import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BundleDiskStore } from '../../../plugins/bundle/disk-store.js'
import { tempDir } from '../helpers.js'
import { payloadOf } from '../support/disk-writer.js'

const WRITER = fileURLToPath(new URL('../support/disk-writer.ts', import.meta.url))

/** Runs the writer until it has saved at least once, then kills it with SIGKILL mid-stream. */
function writeThenKill(dir: string, delayMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let saved = -1
    let killing = false
    child.stdout.on('data', (chunk: Buffer) => {
      for (const m of chunk.toString().matchAll(/saved (\d+)/g)) saved = Number(m[1])
      if (saved >= 0 && !killing) {
        killing = true
        setTimeout(() => child.kill('SIGKILL'), delayMs)
      }
    })
    child.once('exit', (_code, signal) =>
      signal === 'SIGKILL' ? resolve(saved) : reject(new Error(`writer exited ${signal}`)),
    )
  })
}

describe('a kill -9 during a bundle write', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>
  beforeAll(async () => {
    dir = await tempDir('regent-crash-')
  })
  afterAll(async () => {
    await dir.cleanup()
  })

  it('never leaves a corrupt or mismatched bundle to serve', async () => {
    const store = new BundleDiskStore(dir.dir, pino({ level: 'silent' }))
    // Kill at different moments of the write cycle (bounded: 5 rounds).
    for (const delayMs of [0, 3, 7, 15, 30]) {
      const lastReported = await writeThenKill(dir.dir, delayMs)
      const loaded = await store.load('bundle', 'authz')
      expect(loaded, `after a kill ${delayMs} ms past a save`).toBeDefined()
      const revision = Number(loaded!.meta.revision)
      // The copy on disk is a completed save: the last reported one or one finished after it.
      expect(revision).toBeGreaterThanOrEqual(lastReported)
      expect(Buffer.from(loaded!.bytes).equals(Buffer.from(payloadOf(revision)))).toBe(true)
      expect(loaded!.meta.etag).toBe(`"${revision}"`)
    }
  }, 60_000)
})
