/**
 * One fixture per rule: a snippet that breaks it (the rule must report it, at the given row) and a
 * clean one (the rule must stay silent). Every shipped rule must have a fixture.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { BUILTIN_LINT_RULES } from '../../../core/lint/builtin-rules.js'
import { emptyConfig } from '../../../core/lint/config.js'
import { lint } from '../../../core/lint/engine.js'
import type { LintRule } from '../../../core/lint/types.js'

interface Fixture {
  bad: string
  /** Row of the first violation in `bad`. */
  row: number
  good: string
  /** File name (default `policy.rego`). */
  file?: string
  goodFile?: string
}

const FIXTURES: Record<string, Fixture> = {
  'constant-condition': {
    bad: 'package p\n\nallow if {\n\t1 == 1\n\tinput.x\n}\n',
    row: 4,
    good: 'package p\n\nallow if {\n\tinput.x == 1\n}\n',
  },
  'rule-shadows-builtin': {
    bad: 'package p\n\ncount := 3\n',
    row: 3,
    good: 'package p\n\ntotal := 3\n',
  },
  'var-shadows-builtin': {
    bad: 'package p\n\nallow if {\n\tcount := 3\n\tcount > 1\n}\n',
    row: 4,
    good: 'package p\n\nallow if {\n\tn := 3\n\tn > 1\n}\n',
  },
  'impossible-not': {
    bad: 'package p\n\ndeny contains "x" if input.bad\n\nallow if {\n\tnot deny\n}\n',
    row: 6,
    good: 'package p\n\ndeny contains "x" if input.bad\n\nallow if {\n\tcount(deny) == 0\n}\n',
  },
  'top-level-iteration': {
    bad: 'package p\n\nname := input.users[_].name\n',
    row: 3,
    good: 'package p\n\nnames contains name if some name in input.users\n',
  },
  'unused-output-variable': {
    bad: 'package p\n\nallow if {\n\tinput.users[u].admin\n}\n',
    row: 4,
    good: 'package p\n\nallow if {\n\tinput.users[_].admin\n}\n',
  },
  'unused-assignment': {
    bad: 'package p\n\nallow if {\n\tx := input.a\n\tinput.b\n}\n',
    row: 4,
    good: 'package p\n\nallow if {\n\tx := input.a\n\tx > 1\n}\n',
  },
  'duplicate-rule': {
    bad: 'package p\n\nallow if input.a\n\nallow if input.a\n',
    row: 5,
    good: 'package p\n\nallow if input.a\n\nallow if input.b\n',
  },
  'rule-conflicts-with-import': {
    bad: 'package p\n\nimport data.users\n\nusers := input.users\n\nx := users\n',
    row: 5,
    good: 'package p\n\nimport data.users\n\nlocal_users := input.users\n\nx := users\n',
  },
  'use-in-operator': {
    bad: 'package p\n\nallow if input.roles[_] == "admin"\n',
    row: 3,
    good: 'package p\n\nallow if "admin" in input.roles\n',
  },
  'boolean-assignment': {
    bad: 'package p\n\nallow := input.x == 1\n',
    row: 3,
    good: 'package p\n\nallow if input.x == 1\n',
  },
  'non-raw-regex-pattern': {
    bad: 'package p\n\nallow if regex.match("\\\\d+", input.x)\n',
    row: 3,
    good: 'package p\n\nallow if regex.match(`\\d+`, input.x)\n',
  },
  'unused-import': {
    bad: 'package p\n\nimport data.lib\n\nallow if input.x\n',
    row: 3,
    good: 'package p\n\nimport data.lib\n\nallow if lib.ok\n',
  },
  'redundant-rego-v1-import': {
    bad: 'package p\n\nimport rego.v1\n\nallow if input.x\n',
    row: 3,
    good: 'package p\n\nallow if input.x\n',
  },
  'import-shadows-import': {
    bad: 'package p\n\nimport data.a.lib\nimport data.b.lib\n\nallow if lib.ok\n',
    row: 4,
    good: 'package p\n\nimport data.a.lib\nimport data.b.lib as blib\n\nallow if lib.ok\n\ndeny if blib.ok\n',
  },
  'avoid-importing-input': {
    bad: 'package p\n\nimport input.user\n\nallow if user.admin\n',
    row: 3,
    good: 'package p\n\nallow if input.user.admin\n',
  },
  'line-length': {
    bad: `package p\n\nallow if input.x == "${'a'.repeat(130)}"\n`,
    row: 3,
    good: 'package p\n\nallow if input.x == "a"\n',
  },
  'prefer-snake-case': {
    bad: 'package p\n\nisAdmin if input.admin\n',
    row: 3,
    good: 'package p\n\nis_admin if input.admin\n',
  },
  'default-not-first': {
    bad: 'package p\n\nallow if input.x\n\ndefault allow := false\n',
    row: 5,
    good: 'package p\n\ndefault allow := false\n\nallow if input.x\n',
  },
  'opa-fmt': {
    bad: 'package p\n\nallow   if input.x\n',
    row: 3,
    good: 'package p\n\nallow if input.x\n',
  },
  'todo-comment': {
    bad: 'package p\n\n# TODO: check the user\nallow if input.x\n',
    row: 3,
    good: 'package p\n\n# the user is checked upstream\nallow if input.x\n',
  },
  'use-assignment-operator': {
    bad: 'package p\n\nlimit = 5\n',
    row: 3,
    good: 'package p\n\nlimit := 5\n',
  },
  'prefer-some-in-iteration': {
    bad: 'package p\n\nallow if {\n\tsome i\n\tinput.xs[i] == 1\n}\n',
    row: 4,
    good: 'package p\n\nallow if {\n\tsome x in input.xs\n\tx == 1\n}\n',
  },
  'test-outside-test-package': {
    bad: 'package p\n\ntest_allow if true\n',
    row: 3,
    file: 'p_test.rego',
    good: 'package p_test\n\ntest_allow if true\n',
    goodFile: 'p_test.rego',
  },
  'todo-test': {
    bad: 'package p_test\n\ntodo_test_allow if true\n',
    row: 3,
    file: 'p_test.rego',
    good: 'package p_test\n\ntest_allow if true\n',
    goodFile: 'p_test.rego',
  },
  'identically-named-tests': {
    bad: 'package p_test\n\ntest_a if true\n\ntest_a if false\n',
    row: 5,
    file: 'p_test.rego',
    good: 'package p_test\n\ntest_a if true\n\ntest_b if false\n',
    goodFile: 'p_test.rego',
  },
  'print-or-trace-call': {
    bad: 'package p\n\nallow if {\n\tprint(input.x)\n\tinput.x\n}\n',
    row: 4,
    good: 'package p\n\nallow if {\n\tinput.x\n}\n',
  },
  'file-missing-test-suffix': {
    bad: 'package p_test\n\ntest_a if true\n',
    row: 1,
    file: 'tests.rego',
    good: 'package p_test\n\ntest_a if true\n',
    goodFile: 'p_test.rego',
  },
  'walk-no-path': {
    bad: 'package p\n\nvalues contains v if walk(input, [path, v])\n',
    row: 3,
    good: 'package p\n\nvalues contains v if walk(input, [_, v])\n',
  },
  'non-loop-expression': {
    bad: 'package p\n\nxs := [y | some y in input.ys; n := count(input.all); y > n]\n',
    row: 3,
    good: 'package p\n\nxs := [y | some y in input.ys; y > 2]\n',
  },
  'with-outside-test-context': {
    bad: 'package p\n\nallow if data.q.allow with input as {"x": 1}\n',
    row: 3,
    good: 'package p_test\n\ntest_allow if data.q.allow with input as {"x": 1}\n',
    goodFile: 'p_test.rego',
  },
}

async function run(rule: LintRule, text: string, file: string) {
  const { report, parseErrors } = await lint({
    files: [{ file, text }],
    rules: [rule],
    config: emptyConfig(),
  })
  expect(parseErrors.map(String)).toEqual([])
  return report.violations
}

describe('lint rules', () => {
  it('every rule has its rationale under its name in docs/lint.md', () => {
    const doc = readFileSync(new URL('../../../docs/lint.md', import.meta.url), 'utf8')
    const names = [...BUILTIN_LINT_RULES.map((r) => r.name), 'filter-fragment']
    expect(names.filter((n) => !doc.includes(`\n#### ${n}\n`))).toEqual([])
  })

  it('every rule has a fixture', () => {
    expect(BUILTIN_LINT_RULES.map((r) => r.name).filter((n) => !FIXTURES[n])).toEqual([])
  })

  for (const rule of BUILTIN_LINT_RULES) {
    const fixture = FIXTURES[rule.name]
    if (!fixture) continue
    it(`${rule.category}/${rule.name} reports the violating snippet and not the clean one`, async () => {
      const bad = await run(rule, fixture.bad, fixture.file ?? 'policy.rego')
      expect(bad.length).toBeGreaterThan(0)
      expect(bad[0]).toMatchObject({ title: rule.name, category: rule.category, level: 'error' })
      expect(bad[0]?.location.row).toBe(fixture.row)
      expect(await run(rule, fixture.good, fixture.goodFile ?? 'policy.rego')).toEqual([])
    })
  }
})
