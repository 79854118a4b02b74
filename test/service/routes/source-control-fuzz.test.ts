/**
 * Property test of the source-control endpoints over real HTTP: generated bodies and queries
 * (well-formed and malformed, near-valid commits with hostile paths, odd URLs and references)
 * never get an internal error: a 4xx envelope naming the problem, or a git status (`git_*`, 502/504)
 * for a repository that cannot be reached. The system's branch the system follows is never moved
 * and the service goes on answering a good request. Run counts are bounded.
 */
import { rmSync } from 'node:fs'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../../store/backends.js'
import { git, makeOrigin, tempDir } from '../git/fixtures.js'
import { startTestService, type TestService } from '../harness.js'

const sqlite = BACKENDS.find((b) => b.name === 'sqlite')!
const root = tempDir()
const origin = makeOrigin(root, { 'policies/a.rego': 'package a\n' })
const url = `file://${origin.bare}`

const json = fc.jsonValue({ maxDepth: 3 })
const hostilePath = fc.constantFrom(
  'a.rego',
  '../a.rego',
  '/etc/passwd',
  '.git/config',
  'a/../../b',
  '',
  '.',
  'a\u0000b',
  'ü/ß.rego',
  'x'.repeat(300),
  'a.rego/b',
)
const hostileName = fc.constantFrom(
  'main',
  'x',
  '--all',
  'main~1',
  'HEAD',
  'a..b',
  'refs/heads/x',
  '',
  '@{1}',
  'ü',
)
const commitBody = fc.oneof(
  json,
  fc.record(
    {
      // Not the followed branch: a generated commit that is valid lands, and only main is watched.
      branch: fc.oneof(
        hostileName.filter((b) => b !== 'main'),
        json,
      ),
      author: fc.oneof(fc.constantFrom('A', '', 'a <b>', 'x\ny'), json),
      email: fc.oneof(fc.constantFrom('a@x', ''), json),
      message: fc.oneof(fc.constantFrom('m', ''), json),
      files: fc.oneof(
        fc.dictionary(hostilePath, fc.oneof(fc.string({ maxLength: 20 }), json), { maxKeys: 3 }),
        json,
      ),
      files_to_delete: fc.oneof(fc.array(hostilePath, { maxLength: 3 }), json),
    },
    { requiredKeys: [] },
  ),
)
const verifyBody = fc.oneof(
  json,
  fc.record(
    {
      id: fc.oneof(fc.constantFrom('s', '../x', '', 'files'), json),
      url: fc.oneof(
        fc.constantFrom(
          url,
          'ext::sh -c id',
          '-u',
          'https://u:p@h/r',
          'ftp://h/r',
          'file:///nowhere',
          'x@y:z',
        ),
        json,
      ),
      reference: fc.oneof(hostileName, json),
      commit: fc.oneof(fc.constantFrom('', 'f'.repeat(40), 'abc'), json),
      credentials: fc.oneof(fc.constantFrom('', 'git/none'), json),
      path: fc.oneof(hostilePath, json),
      ssh_credentials: json,
    },
    { requiredKeys: [] },
  ),
)
const request = fc.oneof(
  fc.record({
    method: fc.constant('POST'),
    path: fc.constant('/v1/systems/source-control/verify-config'),
    body: verifyBody,
  }),
  fc.record({
    method: fc.constant('POST'),
    path: fc.constant('/v1/systems/files/commits'),
    body: commitBody,
  }),
  fc.record({
    method: fc.constantFrom('GET', 'DELETE'),
    path: hostileName.map((b) => `/v1/systems/files/branch?branch=${encodeURIComponent(b)}`),
    body: fc.constant(undefined),
  }),
  fc.record({
    method: fc.constant('GET'),
    path: hostileName.map((b) => `/v1/systems/files/master?branch=${encodeURIComponent(b)}`),
    body: fc.constant(undefined),
  }),
)

describe('source-control endpoints under generated requests', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService(sqlite)
    const res = await t.json('PUT', '/v1/systems/files', {
      body: {
        name: 'files',
        type: 'custom',
        source_control: { origin: { url, reference: 'main', path: 'policies' } },
      },
      headers: { 'If-None-Match': '*' },
    })
    expect(res.status).toBe(200)
  })
  afterAll(async () => {
    await t?.close()
    rmSync(root, { recursive: true, force: true })
  })

  it('answers a 4xx envelope or a git status, never an internal error, and keeps the followed branch', async () => {
    const main = git(origin.bare, 'rev-parse', 'main')
    await fc.assert(
      fc.asyncProperty(request, async ({ method, path, body }) => {
        const res = await t.json<{ code?: string; message?: string }>(
          method,
          path,
          body === undefined ? {} : { body },
        )
        if (res.status >= 500)
          expect(res.body.code, `${method} ${path} ${JSON.stringify(body)}`).toMatch(/^git_/)
        if (res.status >= 400) expect(res.body.message).toEqual(expect.any(String))
        expect(res.status).not.toBe(500)
      }),
      { numRuns: 80 },
    )
    expect(git(origin.bare, 'rev-parse', 'main')).toBe(main)
    const good = await t.json('GET', '/v1/systems/files/master')
    expect(good.status).toBe(200)
  })
})
