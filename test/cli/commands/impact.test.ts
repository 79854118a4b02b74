/**
 * `regent impact record` against a real `regent run -s`, both child processes: decisions are sent
 * throughout the recording (the recorder's start-up time is not known), differences come back in
 * the report, --fail-any exits 1, and a missing bundle or a refused recording exit 1 with a message.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RegentProcess, startRegent } from '../../relay/support/processes.js'
import { runRegent } from '../../support/run-cli.js'

let dir: string
let server: RegentProcess

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'regent-impact-'))
  mkdirSync(join(dir, 'primary'))
  mkdirSync(join(dir, 'candidate'))
  writeFileSync(join(dir, 'primary', 'p.rego'), 'package authz\n\nallow if input.user == "alice"\n')
  writeFileSync(
    join(dir, 'candidate', 'p.rego'),
    'package authz\n\nallow if input.user in {"alice", "bob"}\n',
  )
  server = await startRegent(['run', '-s', '-a', '127.0.0.1:0', '-b', join(dir, 'primary')])
}, 30_000)

afterAll(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** Sends decisions every 100 ms until `done` settles (at most 25 s); returns the answers seen. */
async function decideUntil(done: Promise<unknown>): Promise<Set<string>> {
  let finished = false
  void done.finally(() => {
    finished = true
  })
  const answers = new Set<string>()
  const deadline = Date.now() + 25_000
  while (!finished && Date.now() < deadline) {
    for (const user of ['alice', 'bob', 'carol']) {
      const res = await fetch(`${server.url}/v1/data/authz/allow`, {
        method: 'POST',
        body: JSON.stringify({ input: { user } }),
      })
      answers.add(`${user}=${await res.text()}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return answers
}

describe('regent impact record', () => {
  it('reports the differences, exits 1 with --fail-any, and never changes the served answers', async () => {
    const out = join(dir, 'grouped.csv')
    const json = runRegent(
      [
        'impact',
        'record',
        '-a',
        server.url,
        '-b',
        join(dir, 'candidate'),
        '-d',
        '6s',
        '--sample-rate',
        '1',
        '-f',
        'json',
        '--fail-any',
      ],
      { timeoutMs: 40_000 },
    )
    const grouped = runRegent(
      [
        'impact',
        'record',
        '-a',
        server.url,
        '-b',
        join(dir, 'candidate'),
        '-d',
        '6s',
        '--sample-rate',
        '1',
        '--group',
        '-f',
        'csv',
        '-o',
        out,
      ],
      { timeoutMs: 40_000 },
    )
    const answers = await decideUntil(Promise.all([json, grouped]))
    expect([...answers].sort()).toEqual(['alice={"result":true}', 'bob={}', 'carol={}'])
    const recorded = await json
    expect(recorded.code, recorded.stderr).toBe(1)
    const rows = JSON.parse(recorded.stdout) as Array<Record<string, unknown>>
    expect(rows.length).toBeGreaterThan(0)
    for (const row of rows)
      expect(row).toMatchObject({ path: 'authz/allow', input: { user: 'bob' }, value_b: true })
    expect((await grouped).code).toBe(0)
    const csv = readFileSync(out, 'utf8').trim().split('\n')
    expect(csv[0]).toMatch(/^path,input,n,mean_primary_ns,/)
    expect(csv).toHaveLength(2)
    expect(csv[1]).toMatch(/^authz\/allow,"{""user"":""bob""}",\d+,/)
  }, 60_000)

  it('exits 1 with a message without -b, or when the server refuses the recording', async () => {
    const [noBundle, refused] = await Promise.all([
      runRegent(['impact', 'record', '-a', server.url, '-d', '1s']),
      runRegent(['impact', 'record', '-a', server.url, '-b', join(dir, 'p.rego'), '-d', '1s']),
    ])
    expect(noBundle.code).toBe(1)
    expect(noBundle.stderr).toContain('bundle path required but unset')
    writeFileSync(join(dir, 'p.rego'), 'not a bundle')
    const again = await runRegent([
      'impact',
      'record',
      '-a',
      server.url,
      '-b',
      join(dir, 'p.rego'),
      '-d',
      '1s',
    ])
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/unexpected HTTP status code: 400: impact: candidate bundle/)
    expect(refused.code).toBe(1) // the file did not exist yet
  }, 40_000)
})
