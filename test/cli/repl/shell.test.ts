/**
 * The interactive shell driven through piped input (no terminal: no prompt, no banner), asserting
 * everything it prints. Expected texts follow OPA's REPL (repl.go and its tests).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { defined, redefined, shellOutput } from './support.js'

describe('regent run shell: rules and queries', () => {
  it('defines complete rules with := and =, and queries them', async () => {
    const out = await shellOutput('p := 1\np\np + 1\ny = 5\ny\n')
    expect(out).toBe(`${defined('p')}1\n2\n${defined('y')}5\n`)
  })

  it('re-defines a rule given again with :=, and reads = on a known rule as a comparison', async () => {
    const out = await shellOutput('x = 1\nx := 2\nx\nx = 2\nx = 3\n')
    expect(out).toBe(`${defined('x')}${redefined('x')}2\ntrue\nundefined\n`)
  })

  it('adds rule definitions with if, default, functions and contains', async () => {
    const out = await shellOutput(
      [
        'default allow := false',
        'allow if input.user == "alice"',
        'allow',
        'allow with input as {"user": "alice"}',
        'double(x) := x * 2',
        'double(21)',
        'evens contains n if { some n in [1, 2, 3, 4]; n % 2 == 0 }',
        'evens',
        '',
      ].join('\n'),
    )
    expect(out).toBe(
      [
        defined('allow'),
        defined('allow'),
        'false\n',
        'true\n',
        defined('double'),
        '42\n',
        defined('evens'),
        '[\n  2,\n  4\n]\n',
      ].join(''),
    )
  })

  it('prints bindings as a table, and undefined when there are none', async () => {
    const out = await shellOutput('xs := ["a", "b"]\nxs[i] = x\nxs[_] == "c"\n')
    const table = [
      '+---+-----+',
      '| i | x   |',
      '+---+-----+',
      '| 0 | "a" |',
      '| 1 | "b" |',
      '+---+-----+',
      '',
    ]
    expect(out).toBe(`${defined('xs')}${table.join('\n')}undefined\n`)
  })

  it('keeps a default rule apart from the rules of its name, and replaces an earlier default', async () => {
    const out = await shellOutput(
      'allow if input.admin\ndefault allow := false\ndefault allow := true\nshow\n',
    )
    expect(out).toBe(
      `${defined('allow')}${defined('allow')}${redefined('allow')}package repl\n\nallow if input.admin\n\ndefault allow := true\n`,
    )
  })
})

describe('regent run shell: multi-line input', () => {
  it('continues while brackets are open and runs the statement when they close', async () => {
    const out = await shellOutput(
      'allow if {\n  input.x == 1\n  input.y == 2\n}\nallow with input as {"x": 1, "y": 2}\n',
    )
    expect(out).toBe(`${defined('allow')}true\n`)
  })

  it('continues a query over lines, and a statement that stops at an operator', async () => {
    const out = await shellOutput('[1,\n 2]\nz := 1 +\n2\nz\n')
    expect(out).toBe(`[\n  1,\n  2\n]\n${defined('z')}3\n`)
  })

  it('ends a continuation at an empty line, printing its error, and goes on', async () => {
    const out = await shellOutput('y := [1,\n\nw := 1\nw\n')
    expect(out).toBe(
      // As OPA: the term's error, then the head's; the end of the text is on its last character.
      `2 errors occurred:\n1:8: rego_parse_error: unexpected eof token: expected term\n\ty := [1,\n\t       ^\n1:8: rego_parse_error: unexpected eof token: expected rule value term (e.g., y := <VALUE> { ... })\n\ty := [1,\n\t       ^\n${defined('w')}1\n`,
    )
  })

  it('runs what is buffered when the input ends inside a statement', async () => {
    const out = await shellOutput('allow if {\n true')
    expect(out).toBe(
      '1 error occurred: 2:5: rego_parse_error: unexpected eof token: expected \\n or ; or }\n\t true\n\t    ^\n',
    )
  })
})

describe('regent run shell: packages, imports, show and unset', () => {
  it('switches packages; rules land in the current one and queries resolve there', async () => {
    const out = await shellOutput('package a.b\np := 1\nshow\npackage repl\ndata.a.b.p\npackage a.b\np\n')
    expect(out).toBe(`${defined('p', 'a.b')}package a.b\n\np := 1\n1\n1\n`)
  })

  it('shows imports, and says so before anything is defined', async () => {
    const out = await shellOutput('show\nimport data.foo as bar\nimport input.xyz\nimport input.xyz\nshow\n')
    expect(out).toBe('no rules defined\npackage repl\n\nimport data.foo as bar\nimport input.xyz\n')
  })

  it('resolves imported names in queries and rules', async () => {
    const out = await shellOutput(
      'package lib\nlimit := 3\npackage app\nimport data.lib\nok if lib.limit > 2\nok\n',
    )
    expect(out).toBe(`${defined('limit', 'lib')}${defined('ok', 'app')}true\n`)
  })

  it('unsets rules of the current module with OPA’s warnings and argument errors', async () => {
    const out = await shellOutput('p := 1\nq := 2\nunset p\nshow\nunset p\nunset\nunset 1=1\n')
    expect(out).toBe(
      [
        defined('p'),
        defined('q'),
        'package repl\n\nq := 2\n',
        'warning: no matching rules in current module\n',
        'code bad arguments: unset <var>: expects exactly one argument\n',
        'code bad arguments: argument must identify a rule\n',
      ].join(''),
    )
  })

  it('unsets whole packages, falling back to package repl', async () => {
    const out = await shellOutput(
      'package a\np := 1\npackage b\nq := 2\nunset-package a\ndata.a.p\nunset-package a\nshow\nunset-package b\nshow\n',
    )
    expect(out).toBe(
      [
        defined('p', 'a'),
        defined('q', 'b'),
        'undefined\n',
        'warning: no matching package\n',
        'package b\n\nq := 2\n',
        'no rules defined\n',
      ].join(''),
    )
  })
})

describe('regent run shell: input, output formats and errors', () => {
  it('takes input := value in package repl as the input document, until unset', async () => {
    const out = await shellOutput(
      'input := {"user": "alice"}\ninput.user\ninput := {"user": "bob"}\ninput.user\nshow\nunset input\ninput.user\n',
    )
    expect(out).toBe(
      [
        defined('input'),
        '"alice"\n',
        redefined('input'),
        '"bob"\n',
        'package repl\n\ninput := {"user": "bob"}\n',
        'undefined\n',
      ].join(''),
    )
  })

  it('reads the input from rules of package repl.input, as OPA does', async () => {
    const out = await shellOutput('package repl.input\nuser := "carol"\npackage repl\ninput.user\n')
    expect(out).toBe(`${defined('user', 'repl.input')}"carol"\n`)
  })

  it('prints JSON after json (no rule messages, {} when undefined) and pretty again after pretty', async () => {
    const out = await shellOutput('json\np := 1\np\ndata.repl.missing\npretty\np\n')
    expect(out).toBe(
      `${JSON.stringify(
        { result: [{ expressions: [{ value: 1, text: 'p', location: { row: 1, col: 1 } }] }] },
        null,
        2,
      )}\n{}\n1\n`,
    )
  })

  it('starts in json with -f json', async () => {
    const out = await shellOutput('x := [1]\nx[0]\n', { format: 'json' })
    expect(JSON.parse(out)).toEqual({
      result: [{ expressions: [{ value: 1, text: 'x[0]', location: { row: 1, col: 1 } }] }],
    })
  })

  it('prints a parse error with its excerpt and goes on', async () => {
    const out = await shellOutput('x := [1,,2]\n1 + 1\n')
    expect(out).toBe(
      '2 errors occurred:\n1:9: rego_parse_error: unexpected , token: expected term\n\tx := [1,,2]\n\t        ^\n1:9: rego_parse_error: unexpected , token: expected rule value term (e.g., x := <VALUE> { ... })\n\tx := [1,,2]\n\t        ^\n2\n',
    )
  })

  it('reports the v1 keyword errors for a v0-style rule', async () => {
    const out = await shellOutput('a[2] { true }\n')
    expect(out).toBe(
      [
        '2 errors occurred:',
        '1:1: rego_parse_error: `if` keyword is required before rule body',
        '\ta[2] { true }',
        '\t^',
        '1:1: rego_parse_error: `contains` keyword is required for partial set rules',
        '\ta[2] { true }',
        '\t^',
        '',
      ].join('\n'),
    )
  })

  it('refuses a rule that does not compile and keeps the module as it was', async () => {
    const out = await shellOutput('ok := 1\nbad := y\nshow\n')
    expect(out).toMatch(/^Rule 'ok' .*\n1 error occurred: 1:\d+: rego_unsafe_var_error: var y is unsafe\n/)
    expect(out.split('\n').slice(2).join('\n')).toBe('package repl\n\nok := 1\n')
  })

  it('prints evaluation errors as text, or as {"errors": ...} in json', async () => {
    const out = await shellOutput('1/0\nstrict-builtin-errors\n1/0\njson\n1/0\n')
    // Without a file, OPA's Location.String() prints the expression's text where the row would be.
    expect(out).toBe(
      `undefined\n1 error occurred: 1/0: eval_builtin_error: div: divide by zero\n${JSON.stringify(
        {
          errors: [
            {
              message: 'div: divide by zero',
              code: 'eval_builtin_error',
              location: { file: '', row: 1, col: 1 },
            },
          ],
        },
        null,
        2,
      )}\n`,
    )
  })

  it('never stops on bad input', async () => {
    const garbage = [
      '}',
      ')))',
      '"unterminated',
      'else := 1',
      ':= :=',
      '\u0001',
      'package 1',
      'unset-package 1',
    ]
    const out = await shellOutput(`${garbage.join('\n')}\n\n1 + 1\n`)
    expect(out.endsWith('\n2\n')).toBe(true)
    expect(out).toContain('code bad arguments: argument must identify a package\n')
  })
})

describe('regent run shell: commands', () => {
  it('stops at exit and ignores what follows', async () => {
    expect(await shellOutput('p := 1\nexit\np\n')).toBe(defined('p'))
  })

  it('shows its settings with show debug; metrics and strict-builtin-errors toggle them', async () => {
    const out = await shellOutput('show debug\nmetrics\nstrict-builtin-errors\nshow debug\n')
    const [before, after] = out.split('}\n').map((s) => (s ? JSON.parse(`${s}}`) : undefined))
    expect(before).toEqual({
      explain: 'off',
      metrics: false,
      instrument: false,
      profile: false,
      'strict-builtin-errors': false,
    })
    expect(after).toMatchObject({ metrics: true, 'strict-builtin-errors': true })
  })

  it('prints timers after the result with metrics on', async () => {
    const out = await shellOutput('metrics\n1 + 1\n')
    expect(out).toMatch(
      /^2\n\+-+\+-+\+\n\| Metric +\| Value +\|\n\+-+\+-+\+\n\| timer_rego_query_compile_ns +\| \d+ +\|\n\| timer_rego_query_eval_ns +\| \d+ +\|\n\+-+\+-+\+\n$/,
    )
  })

  it('prints the trace before each result with trace, only notes with notes, and none when toggled off', async () => {
    const full = await shellOutput('p if { x := 1; x > 0 }\ntrace\np\n')
    const lines = full.split('\n').map((l) => l.replace(/^\S*\s+/, ''))
    expect(lines).toContain('Enter data.repl.p = _')
    expect(lines).toContain('| Index data.repl.p (matched 1 rule, early exit)')
    expect(lines).toContain('| Enter data.repl.p')
    expect(full.trimEnd().endsWith('true')).toBe(true)
    const notes = await shellOutput('q if { trace("hello"); true }\nnotes\nq\nnotes\nq\n')
    expect(notes.split('\n').filter((l) => l.includes('Note'))).toEqual([
      expect.stringMatching(/\| \| Note "hello"$/),
    ])
    expect(notes.trimEnd().split('\n').slice(-2)).toEqual(['true', 'true'])
    const debug = await shellOutput('fails\nshow debug\n')
    expect(JSON.parse(debug).explain).toBe('fails')
  })

  it('dumps the data document', async () => {
    const out = await shellOutput('dump\n', { files: { 'data.json': '{"a": [1, 2]}' } })
    expect(out).toBe('{"a":[1,2]}\n')
  })

  it('lists its commands and what it leaves out in help, and explains input', async () => {
    const help = await shellOutput('help\n')
    expect(help).toContain('Commands\n========\n')
    expect(help).toContain('  unset <var> : unset rules in currently active module\n')
    expect(help).toContain('Not available in regent')
    expect(help).toContain('  trace : toggle full trace\n')
    expect(help).toContain('profile : use regent eval --profile\n')
    expect(await shellOutput('help input\n')).toContain('input := <value> in package repl')
    expect(await shellOutput('help nope\n')).toBe("unknown topic 'nope'\n")
  })

  it('answers the OPA commands it does not have instead of evaluating them', async () => {
    expect(await shellOutput('profile\n')).toBe(
      "error: profile is not supported by regent's shell (use regent eval --profile)\n",
    )
  })
})

describe('regent run shell: on a terminal', () => {
  it('shows the banner, the prompt, and the continuation prompt while a statement is open', async () => {
    const out = await shellOutput('p := 1\nallow if {\ntrue\n}\np\n', { terminal: true })
    // Cursor movements aside, readline echoes the typed lines and the shell prompts before each read.
    const plain = out.replace(/\u001b\[\d*[GJ]/g, '')
    expect(plain.startsWith('BANNER\n> ')).toBe(true)
    expect(plain).toContain(`${defined('p')}> | | ${defined('allow')}> 1\n> \n`)
  })

  it('reads earlier lines from the history file and saves the session’s lines to it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'regent-repl-history-'))
    try {
      const historyFile = join(dir, 'history')
      await writeFile(historyFile, 'old := 1\n')
      await shellOutput('p := 1\np\n', { terminal: true, historyFile })
      expect(await readFile(historyFile, 'utf8')).toBe('old := 1\np := 1\np\n')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe('regent run shell: loaded policies and data', () => {
  const files = {
    'authz.rego': 'package authz\n\ndefault allow := false\n\nallow if input.user in data.admins\n',
    'data.json': '{"admins": ["alice"]}',
    'repl.input:input.json': '{"user": "alice"}',
  }

  it('queries loaded data and policies, with repl.input:file as the input', async () => {
    const out = await shellOutput(
      'data.admins[i]\ndata.authz.allow\ndata.authz.allow with input.user as "bob"\n',
      {
        files,
      },
    )
    expect(out).toBe('+---+\n| i |\n+---+\n| 0 |\n+---+\ntrue\nfalse\n')
  })

  it('adds shell rules next to loaded rules of the same package', async () => {
    const out = await shellOutput(
      'package authz\nallow if input.user == "bob"\nallow with input.user as "bob"\n',
      {
        files,
      },
    )
    expect(out).toBe(`${defined('allow', 'authz')}true\n`)
  })

  it('refuses a shell rule where loaded data already is', async () => {
    const out = await shellOutput('package admins\np := 1\n', { files })
    expect(out).toBe(
      '1 error occurred: 1:1: rego_compile_error: conflicting rule for data path admins/p found\n',
    )
  })

  it('parses as Rego v0 with --v0-compatible, where input may be a rule', async () => {
    const out = await shellOutput('p[x] { x := 1 }\np\ninput = {"a": 1}\ninput.a\n', { regoVersion: 'v0' })
    expect(out).toBe(`${defined('p')}[\n  1\n]\n${defined('input')}1\n`)
  })
})
