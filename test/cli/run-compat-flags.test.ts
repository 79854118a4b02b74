/**
 * `regent run`'s no-effect compatibility flags (cli/run-options/compat-flags.ts): accepted without
 * a word on stderr, the server serving as without them; a bad `-O` level refused with exit 2.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startRegent } from '../relay/support/processes.js'
import { runRegent } from '../support/run-cli.js'

let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'regent-run-compat-'))
  await writeFile(join(dir, 'authz.rego'), 'package authz\n\nallow if input.user == "alice"\n')
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('regent run compatibility flags', () => {
  it('serves as usual with --disable-telemetry, -O 2, --optimize-store-for-read-speed and --skip-known-schema-check', async () => {
    const server = await startRegent([
      'run',
      '-s',
      '-a',
      '127.0.0.1:0',
      '--disable-telemetry',
      '-O',
      '2',
      '--optimize-store-for-read-speed',
      '--skip-known-schema-check',
      join(dir, 'authz.rego'),
    ])
    try {
      const res = await fetch(`${server.url}/v1/data/authz/allow`, {
        method: 'POST',
        body: JSON.stringify({ input: { user: 'alice' } }),
      })
      expect(await res.json()).toEqual({ result: true })
      // Silent, as eval's no-effect flags: the log has no notice about any of them.
      expect(server.stderr.join('')).not.toMatch(/telemetry|ignored|optimi[sz]|schema/i)
    } finally {
      expect(await server.stop()).toBe(0)
    }
  })

  it('refuses an -O level that is not a whole number with exit 2', async () => {
    const res = await runRegent(['run', '-s', '-a', '127.0.0.1:0', '-O', 'fast', join(dir, 'authz.rego')])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain('-O fast: expected a whole number')
  })
})
