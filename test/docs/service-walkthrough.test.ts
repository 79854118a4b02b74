/**
 * The walkthrough of docs/service.md runs as written: the shell block between its
 * `walkthrough:begin` / `walkthrough:end` markers is run with bash and curl against a fresh
 * `regent service` process on 127.0.0.1, and every step's answer is checked.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REGENT_BIN } from '../support/run-cli.js'

const DOC = fileURLToPath(new URL('../../docs/service.md', import.meta.url))
const TOKEN = 'walkthrough-admin-0123456789'

function has(tool: string): boolean {
  try {
    execFileSync(tool, ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}
const tools = has('curl') && has('bash') && has('tar')
if (!tools) console.warn('service walkthrough test skipped: needs curl, bash and tar on PATH')

/** The walkthrough's shell block, as the reader sees it. */
function walkthroughScript(): string {
  const doc = readFileSync(DOC, 'utf8')
  const block = /<!-- walkthrough:begin -->\n```sh\n([\s\S]*?)\n```\n<!-- walkthrough:end -->/.exec(doc)
  if (!block) throw new Error('docs/service.md has no walkthrough block')
  return block[1] as string
}

describe.skipIf(!tools)('docs/service.md walkthrough', () => {
  const dir = mkdtempSync(join(tmpdir(), 'regent-walkthrough-'))
  let child: ChildProcess
  let url = ''

  beforeAll(async () => {
    child = spawn(
      process.execPath,
      [REGENT_BIN, 'service', '--addr', '127.0.0.1:0', '--data-dir', join(dir, 'state')],
      {
        env: { ...process.env, REGENT_ADMIN_TOKEN: TOKEN, REGENT_LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let out = ''
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`service did not start: ${out}`)), 30_000)
      child.stdout!.on('data', (d) => {
        out += d
        const match = /"addr":"(http:\/\/[^"]+)"/.exec(out)
        if (match && out.includes('service ready')) {
          clearTimeout(timer)
          resolve(match[1]!)
        }
      })
      child.once('exit', (code) => reject(new Error(`service exited with ${code}: ${out}`)))
    })
  }, 40_000)

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  })

  it('runs every step as written', () => {
    const output = execFileSync('bash', ['-euo', 'pipefail', '-c', walkthroughScript()], {
      cwd: dir,
      env: { ...process.env, S: url, REGENT_ADMIN_TOKEN: TOKEN },
      encoding: 'utf8',
      timeout: 30_000,
    })
    const lines = output.split('\n')
    // No step answered with an error envelope.
    expect(output).not.toMatch(/"code":"/)
    type Answer = { result?: Result; users?: unknown }
    type Result = { policies?: unknown[]; items?: Array<{ decision_id: string }>; [key: string]: unknown }
    const json = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Answer)
    const results = json.map((j) => j.result)
    // 1. the system, created with its type
    expect(results[0]).toMatchObject({ id: 'tickets', type: 'custom' })
    // 3. the bundle built
    expect(json.filter((j) => j.result?.policies).at(-1)?.result).toMatchObject({
      status: 'Ready',
      policies: [{ id: 'systems/tickets/rules' }],
    })
    // 4. the bundle's files and data, and 304 with its ETag
    expect(lines).toEqual(expect.arrayContaining(['/.manifest', '/data.json', '/rules/authz.rego', '304']))
    expect(json).toContainEqual({ users: { alice: { role: 'admin' }, bob: { role: 'viewer' } } })
    // 6. the searches
    const pages = results.flatMap((r) => (r?.items ? [r.items.map((i) => i.decision_id)] : []))
    expect(pages).toEqual([['d-2'], ['d-1'], ['d-2']])
    expect(results.at(-1)).toMatchObject({ decision_id: 'd-1', result: true, result_kind: 'ALLOWED' })
  }, 40_000)
})
