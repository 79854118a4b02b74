/**
 * `regent test bootstrap` and `regent test new`, run as child processes: the generated
 * `<file>_test.rego` stubs parse, compile and run under `regent test`, existing files are not
 * overwritten without `-f`, and every flag of the spec changes what it should.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runRegent } from '../../support/run-cli.js'

const AUTHZ = `package authz

default allow := false

allow if {
\tinput.method == "GET"
\tinput.user.role == "admin"
\tstartswith(input.user.email, "admin@")
}

allow if {
\tinput.path == ["users"]
\tinput.method == "POST"
}

# METADATA
# title: deny-guests
deny contains msg if {
\tinput.user.role == "guest"
\tmsg := sprintf("no guests: %s", [input.user.name])
}

# METADATA
# custom:
#   test-bootstrap-name: big-orders
flag if input.order.total == 1000
`

let dir: string
const read = (name: string) => readFileSync(join(dir, name), 'utf8')
const regent = (args: string[]) => runRegent(args, { cwd: dir })

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-test-generate-'))
  writeFileSync(join(dir, 'authz.rego'), AUTHZ)
})

afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('regent test bootstrap', () => {
  it('writes one group per rule body into <file>_test.rego, and the stubs run under regent test', async () => {
    const r = await regent(['test', 'bootstrap', 'authz/allow', 'data.authz.deny'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('authz_test.rego (9 tests)')
    const text = read('authz_test.rego')
    expect(text).toContain('package authz_test')
    // Values the body compares input with are used; the rest are placeholders.
    expect(text).toContain(
      'data.authz.allow with input as {"method": "GET", "user": {"email": "TODO", "role": "admin"}}',
    )
    expect(text).toContain('data.authz.allow with input as {"method": "POST", "path": ["users"]}')
    expect(text).toContain('not data.authz.allow with input as {}')
    expect(text).toContain(
      'count(data.authz.deny) > 0 with input as {"user": {"name": "TODO", "role": "guest"}}',
    )
    for (const name of ['allow_1', 'allow_2', 'deny']) {
      for (const kind of ['success', 'no_input', 'wrong_values'])
        expect(text).toContain(`test_${name}_${kind} if {`)
    }
    // Only the placeholder success case (startswith("TODO", "admin@") is false) fails until edited.
    const run = await regent(['test', '-f', 'json', '.'])
    expect(run.code).toBe(2)
    const results = JSON.parse(run.stdout) as Array<{ name: string; fail?: boolean; error?: unknown }>
    expect(results).toHaveLength(9)
    expect(results.filter((t) => t.fail || t.error).map((t) => t.name)).toEqual(['test_allow_1_success'])
  })

  it('a package entrypoint covers all its rules; rules that cannot be tested alone are skipped', async () => {
    writeFileSync(join(dir, 'lib.rego'), 'package lib\n\ndefault d := 1\n\nf(x) := x + 1\n\nq := input.q\n')
    const r = await regent(['test', 'bootstrap', 'lib'])
    expect(r.code).toBe(0)
    const text = read('lib_test.rego')
    expect(text).toContain('test_q_success')
    expect(text).not.toMatch(/test_(d|f)_/)
    expect(existsSync(join(dir, 'authz_test.rego'))).toBe(false)
    // q compares input with nothing: its wrong-values case is a skipped todo for the author.
    expect(text).toContain('todo_test_q_wrong_values if {')
    const run = await regent(['test', '-v', '.'])
    expect(run.code).toBe(2)
    expect(run.stdout).toContain('data.lib_test.todo_test_q_wrong_values: SKIPPED')
    expect(run.stdout).toContain('PASS: 2/3')
    expect((await regent(['test', '-z', '.'])).code).toBe(0)
  })

  it('refuses to overwrite without -f (exit 1, file untouched) and overwrites with -f/--force', async () => {
    writeFileSync(join(dir, 'authz_test.rego'), 'package authz_test\n\ntest_mine if true\n')
    const refused = await regent(['test', 'bootstrap', 'authz/allow'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('already exists (use -f to overwrite)')
    expect(read('authz_test.rego')).toContain('test_mine')
    const forced = await regent(['test', 'bootstrap', '-f', 'authz/allow'])
    expect(forced.code).toBe(0)
    expect(read('authz_test.rego')).not.toContain('test_mine')
    expect((await regent(['test', 'bootstrap', '--force', 'authz/allow'])).code).toBe(0)
  })

  it('an entrypoint with no rule, a policy that does not compile, and no entrypoint fail', async () => {
    const none = await regent(['test', 'bootstrap', 'authz/nope'])
    expect(none.code).toBe(1)
    expect(none.stderr).toContain('no rule found for entrypoint authz/nope')
    writeFileSync(join(dir, 'broken.rego'), 'package broken\n\np if x\n')
    const broken = await regent(['test', 'bootstrap', 'authz/allow'])
    expect(broken.code).toBe(1)
    expect(broken.stderr).toContain('broken.rego')
    expect(existsSync(join(dir, 'authz_test.rego'))).toBe(false)
    expect((await regent(['test', 'bootstrap'])).code).toBe(2)
  })

  it('-d names the policy paths and --ignore skips files', async () => {
    mkdirSync(join(dir, 'policies'))
    writeFileSync(join(dir, 'policies', 'shop.rego'), 'package shop\n\nopen if input.day == "mon"\n')
    const r = await regent(['test', 'bootstrap', '-d', 'policies', 'shop'])
    expect(r.code).toBe(0)
    expect(read('policies/shop_test.rego')).toContain('data.shop.open with input as {"day": "mon"}')
    expect(existsSync(join(dir, 'authz_test.rego'))).toBe(false)
    const ignored = await regent([
      'test',
      'bootstrap',
      '-d',
      'policies',
      '--ignore',
      'shop.rego',
      '-f',
      'shop',
    ])
    expect(ignored.code).toBe(1)
    expect(ignored.stderr).toContain('no rule found for entrypoint shop')
  })

  it('--libraries loads library policies (default .styra/include) without writing tests for them', async () => {
    writeFileSync(
      join(dir, 'authz.rego'),
      'package authz\n\nimport data.helpers\n\nallow if helpers.ok(input.x)\n',
    )
    const missing = await regent(['test', 'bootstrap', 'authz'])
    expect(missing.code).toBe(1)
    mkdirSync(join(dir, 'libs'))
    writeFileSync(join(dir, 'libs', 'helpers.rego'), 'package helpers\n\nok(x) if x == 1\n')
    const r = await regent(['test', 'bootstrap', '--libraries', 'libs', 'authz', 'helpers'])
    // helpers is a library: it is not an entrypoint regent writes tests for.
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('no rule found for entrypoint helpers')
    mkdirSync(join(dir, '.styra', 'include'), { recursive: true })
    writeFileSync(join(dir, '.styra', 'include', 'helpers.rego'), 'package helpers\n\nok(x) if x == 1\n')
    rmSync(join(dir, 'libs'), { recursive: true })
    const byDefault = await regent(['test', 'bootstrap', '-d', 'authz.rego', 'authz'])
    expect(byDefault.code).toBe(0)
    expect(read('authz_test.rego')).toContain('data.authz.allow with input as {"x": "TODO"}')
    expect(existsSync(join(dir, '.styra', 'include', 'helpers_test.rego'))).toBe(false)
  })

  it('service flags are accepted with one notice; --log-level and --log-format shape the log', async () => {
    writeFileSync(join(dir, 'secret'), 'token')
    const r = await regent([
      'test',
      'bootstrap',
      '--url',
      'http://127.0.0.1:1',
      '--secret-file',
      'secret',
      '--styra-config',
      'none.yaml',
      '--log-level',
      'error',
      'authz/allow',
    ])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe(
      'regent: --url, --secret-file, --styra-config ignored: test stubs are generated from local files only\n',
    )
    const json = await regent(['test', 'bootstrap', '-f', '--log-format', 'json', 'authz/allow'])
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stderr)).toMatchObject({ level: 'info', msg: 'wrote authz_test.rego (6 tests)' })
    const bad = await regent(['test', 'bootstrap', '--log-level', 'loud', 'authz/allow'])
    expect(bad.code).toBe(2)
  })
})

describe('regent test new', () => {
  it('adds a group for the rule titled <annotation>, and refuses to add it twice without -f', async () => {
    writeFileSync(join(dir, 'authz_test.rego'), 'package authz_test\n\ntest_mine if true\n')
    const r = await regent(['test', 'new', 'deny-guests'])
    expect(r.code).toBe(0)
    const text = read('authz_test.rego')
    expect(text).toContain('test_mine if true')
    expect(text).toContain('test_deny_guests_success if {')
    expect(text).toContain('count(data.authz.deny) == 0 with input as {}')
    const again = await regent(['test', 'new', 'deny-guests'])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('use -f to replace them')
    expect(read('authz_test.rego')).toBe(text)
    const forced = await regent(['test', 'new', '-f', 'deny-guests'])
    expect(forced.code).toBe(0)
    expect(read('authz_test.rego')).toBe(text)
    const run = await regent(['test', '-v', '.'])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('PASS: 4/4')
  })

  it('finds custom.test-bootstrap-name, creates the file when missing, and -e limits the search', async () => {
    const r = await regent(['test', 'new', 'big-orders'])
    expect(r.code).toBe(0)
    const text = read('authz_test.rego')
    expect(text).toContain('package authz_test')
    expect(text).toContain('data.authz.flag with input as {"order": {"total": 1000}}')
    expect(text).toContain('not data.authz.flag with input as {"order": {"total": 1001}}')
    expect((await regent(['test', '.'])).code).toBe(0)
    const outside = await regent(['test', 'new', '-f', '-e', 'authz/allow', 'big-orders'])
    expect(outside.code).toBe(1)
    expect(outside.stderr).toContain('no rule annotated "big-orders"')
    const inside = await regent(['test', 'new', '-f', '--entrypoint', 'authz/flag', 'big-orders'])
    expect(inside.code).toBe(0)
  })

  it('-d names the policy paths, --ignore skips files, and service flags get the one-line notice', async () => {
    mkdirSync(join(dir, 'policies'))
    writeFileSync(
      join(dir, 'policies', 'shop.rego'),
      'package shop\n\n# METADATA\n# title: monday\nopen if input.day == "mon"\n',
    )
    const r = await regent(['test', 'new', '-d', 'policies', '--url', 'http://127.0.0.1:1', 'monday'])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('regent: --url ignored: test stubs are generated from local files only\n')
    expect(read('policies/shop_test.rego')).toContain('test_monday_success if {')
    // Only the policies folder is read: authz.rego's annotations are not found there.
    expect((await regent(['test', 'new', '-d', 'policies', 'deny-guests'])).code).toBe(1)
    const ignored = await regent(['test', 'new', '-f', '-d', 'policies', '--ignore', 'shop.rego', 'monday'])
    expect(ignored.code).toBe(1)
    expect(ignored.stderr).toContain('no rule annotated "monday"')
  })

  it('an unknown annotation exits 1 and writes nothing', async () => {
    const r = await regent(['test', 'new', 'nobody'])
    expect(r.code).toBe(1)
    expect(existsSync(join(dir, 'authz_test.rego'))).toBe(false)
  })
})
