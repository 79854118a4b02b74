/**
 * `regent login` as a child process against a real `regent service` process: `--read-token`
 * stores the URL and token in the session file with mode 0600; a refused token stores nothing
 * (exit 1); the browser flow with `--no-open` prints the sign-in URL and takes the token the
 * browser brings to the local callback (a wrong state is refused); no sign-in times out (exit 1);
 * bad flags are usage errors (exit 2).
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { REGENT_BIN, runRegent } from '../../support/run-cli.js'
import { type ServiceProcess, startServiceProcess } from '../../support/service-process.js'

describe('regent login', () => {
  let service: ServiceProcess
  let dir: string
  let token: string

  beforeAll(async () => {
    service = await startServiceProcess()
    dir = mkdtempSync(join(tmpdir(), 'regent-login-'))
    const created = await service.call('PUT', '/v1/tokens/cli-user', { description: 'for login' })
    expect(created.status).toBe(200)
    token = created.body.result as string
  }, 30_000)
  afterAll(async () => {
    await service?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('stores the URL and a token read from stdin in a 0600 session file', async () => {
    const file = join(dir, 'session.yaml')
    const res = await runRegent(
      ['login', '--url', `${service.url}/`, '--read-token', '--styra-config', file],
      {
        stdin: `${token}\n`,
      },
    )
    expect(res.stderr).toContain('[INFO] Successfully logged in')
    expect(res.code).toBe(0)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(parseYaml(readFileSync(file, 'utf8'))).toEqual({ url: service.url, token })
  })

  it('keeps other keys, tightens the mode of an existing file, and records --libraries', async () => {
    const file = join(dir, 'existing.yaml')
    writeFileSync(file, 'team: red\ntoken: old\n', { mode: 0o644 })
    const res = await runRegent(
      ['login', '--url', service.url, '--read-token', '--styra-config', file, '--libraries', 'vendor/libs'],
      { stdin: token },
    )
    expect(res.code, res.stderr).toBe(0)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(parseYaml(readFileSync(file, 'utf8'))).toEqual({
      team: 'red',
      url: service.url,
      token,
      libraries: 'vendor/libs',
    })
  })

  it('refuses a token the service refuses, storing nothing', async () => {
    const file = join(dir, 'refused.yaml')
    const res = await runRegent(['login', '--url', service.url, '--read-token', '--styra-config', file], {
      stdin: 'not-a-token',
    })
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('regent login: the service refused the token (401)')
    expect(existsSync(file)).toBe(false)
    const empty = await runRegent(['login', '--url', service.url, '--read-token', '--styra-config', file])
    expect(empty.code).toBe(1)
    expect(empty.stderr).toContain('standard input holds no token')
  })

  it('signs in through the browser callback with --no-open', async () => {
    const file = join(dir, 'browser.yaml')
    const child = spawn(
      process.execPath,
      [REGENT_BIN, 'login', '--url', service.url, '--no-open', '--timeout', '20s', '--styra-config', file],
      { stdio: ['ignore', 'pipe', 'pipe'], timeout: 25_000 },
    )
    let stderr = ''
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve))
    const signIn = await new Promise<URL>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no sign-in URL printed: ${stderr}`)), 20_000)
      child.stderr.on('data', (d) => {
        stderr += d
        const match = /Open this URL in a browser to sign in: (\S+)/.exec(stderr)
        if (match) {
          clearTimeout(timer)
          resolve(new URL(match[1]!))
        }
      })
    })
    expect(`${signIn.origin}${signIn.pathname}`).toBe(`${service.url}/cli-sign-in`)
    const port = signIn.searchParams.get('callback')
    const state = signIn.searchParams.get('state')!
    expect(state).toMatch(/^[0-9a-f]{32}$/)
    // Another site cannot hand this login a token: the state must match.
    const forged = await fetch(`http://127.0.0.1:${port}/callback?state=${'0'.repeat(32)}&token=${token}`)
    expect(forged.status).toBe(400)
    const form = await fetch(`http://127.0.0.1:${port}/`)
    expect(await form.text()).toContain('Paste an API token')
    const ok = await fetch(
      `http://127.0.0.1:${port}/callback?state=${state}&token=${encodeURIComponent(token)}`,
    )
    expect(ok.status).toBe(200)
    expect(await exited).toBe(0)
    expect(parseYaml(readFileSync(file, 'utf8'))).toMatchObject({ url: service.url, token })
  }, 30_000)

  it('gives up when no sign-in arrives within --timeout, and refuses bad flags with exit 2', async () => {
    const file = join(dir, 'timeout.yaml')
    const res = await runRegent([
      'login',
      '--url',
      service.url,
      '--no-open',
      '--timeout',
      '1s',
      '--styra-config',
      file,
    ])
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('no sign-in within 1s')
    expect(existsSync(file)).toBe(false)
    const badTimeout = await runRegent([
      'login',
      '--url',
      service.url,
      '--timeout',
      'soon',
      '--styra-config',
      file,
    ])
    expect(badTimeout.code).toBe(2)
    expect(badTimeout.stderr).toContain('--timeout: "soon"')
    expect((await runRegent(['login', '--bogus'])).code).toBe(2)
    const noUrl = await runRegent(['login', '--read-token', '--styra-config', file], { stdin: token })
    expect(noUrl.code).toBe(1)
    expect(noUrl.stderr).toContain('no service URL: pass --url')
  })
})
