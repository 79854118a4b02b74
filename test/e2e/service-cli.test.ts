/**
 * `regent service` as a real process: it starts on the embedded SQLite default, prints a
 * generated administrator token once on stderr, serves the API with it, stops cleanly on
 * SIGTERM, and refuses bad flags (exit 2) and bad config files (exit 1, naming the key).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../../cli/program.js'

const dirs: string[] = []
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'regent-service-cli-'))
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

interface Started {
  child: ChildProcess
  url: string
  stderr: () => string
}

async function startProcess(dataDir: string): Promise<Started> {
  const env: NodeJS.ProcessEnv = { ...process.env, REGENT_LOG_LEVEL: 'info' }
  delete env.REGENT_ADMIN_TOKEN
  const child = spawn(
    process.execPath,
    ['bin/regent.js', 'service', '--addr', '127.0.0.1:0', '--data-dir', dataDir],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let out = ''
  let err = ''
  child.stderr!.on('data', (d) => {
    err += d
  })
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start: ${out}${err}`)), 20_000)
    child.stdout!.on('data', (d) => {
      out += d
      const match = /"addr":"(http:\/\/[^"]+)"/.exec(out)
      if (match && out.includes('service ready')) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    })
    child.once('exit', (code) => reject(new Error(`service exited with ${code}: ${err}`)))
  })
  return { child, url, stderr: () => err }
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code))
    child.kill('SIGTERM')
  })
}

describe('regent service (process)', () => {
  it('prints a generated administrator token once, serves with it, and stops on SIGTERM', async () => {
    const dataDir = tempDir()
    const first = await startProcess(dataDir)
    const token = /shown only this once:\n(\S+)\n/.exec(first.stderr())?.[1]
    expect(token).toMatch(/^[\w-]{40,}$/)
    const res = await fetch(`${first.url}/v1/systems`, { headers: { Authorization: `Bearer ${token}` } })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ result: [] })
    expect(await stop(first.child)).toBe(0)

    const second = await startProcess(dataDir)
    expect(second.stderr()).not.toContain('shown only this once')
    expect(
      (await fetch(`${second.url}/v1/systems`, { headers: { Authorization: `Bearer ${token}` } })).status,
    ).toBe(200)
    expect(await stop(second.child)).toBe(0)
  })

  it('exits 2 on a bad address and 1 on a bad config file, naming the key', async () => {
    const stderr: string[] = []
    const write = process.stderr.write.bind(process.stderr)
    process.stderr.write = ((chunk: string) => {
      stderr.push(String(chunk))
      return true
    }) as typeof process.stderr.write
    const exitCode = process.exitCode
    try {
      expect(await runCli(['service', '--addr', 'nowhere'])).toBe(2)
      const file = join(tempDir(), 'bad.yaml')
      writeFileSync(file, 'service:\n  limits:\n    max_body_bytes: lots\n')
      expect(await runCli(['service', '-c', file])).toBe(1)
      expect(stderr.join('')).toMatch(/service\.limits\.max_body_bytes: expected a positive integer/)
    } finally {
      process.stderr.write = write
      process.exitCode = exitCode
    }
  })
})
