/**
 * `regent pull` as a child process against a real `regent service` process: after `regent
 * login`, every library lands in `.styra/include/<id>/…` (the default, in the working folder);
 * a file changed locally is never overwritten without `-f` (exit 1, nothing written), and with
 * `-f` it is; modules gone from the service are removed; REGENT_SERVICE_TOKEN overrides the
 * stored token; a LibraryViewer token pulls only its library; the pulled library loads in
 * `regent eval` next to a policy that calls it. The file rules in detail, in process:
 * test/cli/library-files.test.ts.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runRegent } from '../../support/run-cli.js'
import { type ServiceProcess, startServiceProcess } from '../../support/service-process.js'

const URL_V1 = 'package libraries.common\n\nsplit_url(url) := split(trim(url, "/"), "/")\n'
const URL_V2 = 'package libraries.common\n\nsplit_url(url) := split(trim(url, "/"), "/")\n\nversion := 2\n'
const LIMITS = 'package libraries.common.limits\n\nmax_items := 10\n'
const OTHER = 'package libraries.other\n\nx := 1\n'

describe('regent pull', () => {
  let service: ServiceProcess
  let project: string
  const include = () => join(project, '.styra', 'include')
  const pull = (args: string[] = [], env: NodeJS.ProcessEnv = {}) =>
    runRegent(['pull', ...args], { cwd: project, env: { REGENT_SERVICE_TOKEN: '', ...env } })

  beforeAll(async () => {
    service = await startServiceProcess()
    project = mkdtempSync(join(tmpdir(), 'regent-pull-'))
    for (const [id, modules] of [
      ['common', { 'url.rego': URL_V1, 'limits/limits.rego': LIMITS }],
      ['other', { 'x.rego': OTHER }],
    ] as const) {
      const res = await service.call('PUT', `/v1/libraries/${id}`, { modules })
      expect(res.status, res.body.message).toBe(200)
    }
    const login = await runRegent(['login', '--url', service.url, '--read-token'], {
      cwd: project,
      stdin: service.adminToken,
    })
    expect(login.code, login.stderr).toBe(0)
  }, 30_000)
  afterAll(async () => {
    await service?.stop()
    rmSync(project, { recursive: true, force: true })
  })

  it('downloads every library into .styra/include, one folder per library', async () => {
    const res = await pull()
    expect(res.code, res.stderr).toBe(0)
    expect(res.stderr).toContain('Pulled 2 libraries into .styra/include')
    expect(readFileSync(join(include(), 'common', 'url.rego'), 'utf8')).toBe(URL_V1)
    expect(readFileSync(join(include(), 'common', 'limits', 'limits.rego'), 'utf8')).toBe(LIMITS)
    expect(readFileSync(join(include(), 'other', 'x.rego'), 'utf8')).toBe(OTHER)
    // The pulled library loads with a policy that uses it.
    writeFileSync(
      join(project, 'app.rego'),
      'package app\n\nfirst := data.libraries.common.split_url("/dogs/1")[0]\n',
    )
    const evaluated = await runRegent(
      ['eval', '-d', 'app.rego', '-d', '.styra/include', '-f', 'raw', 'data.app.first'],
      {
        cwd: project,
      },
    )
    expect(evaluated.code, evaluated.stderr).toBe(0)
    expect(evaluated.stdout.trim()).toBe('dogs')
  })

  it('refuses to overwrite a local change without -f, and overwrites it with -f', async () => {
    const local = join(include(), 'common', 'url.rego')
    writeFileSync(local, `${URL_V1}# my local note\n`)
    expect(
      (await service.call('PUT', '/v1/libraries/common', { modules: { 'url.rego': URL_V2 } })).status,
    ).toBe(200)
    const refused = await pull()
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(
      'changed since the last pull, nothing written (pull with -f to overwrite): common/url.rego',
    )
    expect(readFileSync(local, 'utf8')).toContain('# my local note')
    // Nothing at all was written: the module the service dropped is still there.
    expect(existsSync(join(include(), 'common', 'limits', 'limits.rego'))).toBe(true)
    const forced = await pull(['--force'])
    expect(forced.code, forced.stderr).toBe(0)
    expect(readFileSync(local, 'utf8')).toBe(URL_V2)
    // The module gone from the service was unchanged here: removed.
    expect(existsSync(join(include(), 'common', 'limits', 'limits.rego'))).toBe(false)
  })

  it('takes the token from REGENT_SERVICE_TOKEN over the stored one', async () => {
    const refused = await pull([], { REGENT_SERVICE_TOKEN: 'not-a-valid-token' })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('regent pull: the service refused the token (401)')
    const created = await service.call('PUT', '/v1/tokens/only-other', { description: 'reads other' })
    const viewerToken = created.body.result as string
    const bound = await service.call('POST', '/v2/authz/rolebindings', {
      resource_filter: { kind: 'library', id: 'other' },
      role_id: 'LibraryViewer',
      subjects: [{ kind: 'token', id: 'only-other' }],
    })
    expect(bound.status).toBe(200)
    const dir = join(project, 'viewer-libs')
    const res = await pull(['--libraries', dir], { REGENT_SERVICE_TOKEN: viewerToken })
    expect(res.code, res.stderr).toBe(0)
    expect(res.stderr).toContain('Pulled 1 libraries')
    expect(existsSync(join(dir, 'other', 'x.rego'))).toBe(true)
    expect(existsSync(join(dir, 'common'))).toBe(false)
  })

  it('fails clearly without a session', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'regent-pull-empty-'))
    try {
      const res = await runRegent(['pull'], { cwd: empty, env: { REGENT_SERVICE_TOKEN: '' } })
      expect(res.code).toBe(1)
      expect(res.stderr).toContain('no service URL: pass --url')
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
  })
})
