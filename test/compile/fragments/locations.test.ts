/**
 * Fragment errors across every check and every target, through the real route and engine: code,
 * message, details and location (file, row, col) of each error. Rows marked "reference" are the
 * reference's own check table (OPA's compile handler tests); the others follow the same rule
 * (docs/compile.md, "Fragment errors"). Every module starts with two lines (`package filters`,
 * `import rego.v1`), so the filter rule is on row 3.
 */
import { describe, expect, it } from 'vitest'
import { compileRoutes } from '../../../compile/route.js'
import { engineBackend } from '../engine-backend.js'

const TARGETS = {
  all: 'application/vnd.opa.ucast.all+json',
  minimal: 'application/vnd.opa.ucast.minimal+json',
  prisma: 'application/vnd.opa.ucast.prisma+json',
  linq: 'application/vnd.opa.ucast.linq+json',
  postgresql: 'application/vnd.opa.sql.postgresql+json',
  mysql: 'application/vnd.opa.sql.mysql+json',
  sqlserver: 'application/vnd.opa.sql.sqlserver+json',
  sqlite: 'application/vnd.opa.sql.sqlite+json',
} as const
type Target = keyof typeof TARGETS
const ALL_TARGETS = Object.keys(TARGETS) as Target[]

/** How messages name each target. */
const NAME: Record<Target, string> = {
  all: 'UCAST (all)',
  minimal: 'UCAST',
  prisma: 'UCAST (prisma)',
  linq: 'UCAST (LINQ)',
  postgresql: 'SQL (postgresql)',
  mysql: 'SQL (mysql)',
  sqlserver: 'SQL (sqlserver)',
  sqlite: 'SQL (sqlite)',
}

/** One expected error: message, row, col (both 0: no location) and, for some, details. */
type Want = [message: string, row: number, col: number, details?: string]

/** An error about an equality copy propagation put back: like the reference, without a location. */
const NOWHERE = [0, 0] as const

interface Row {
  check: string
  rego: string
  /** The errors each target answers; an empty list means the target accepts the policy. */
  errors: (t: Target) => Want[]
}

/** `want` for every target, whatever it is. */
const always =
  (...want: Want[]) =>
  (): Want[] =>
    want
/** `want(target name)` for the `refusing` targets, nothing for the others. */
const refusedBy =
  (refusing: Target[], want: (name: string) => Want[]) =>
  (t: Target): Want[] =>
    refusing.includes(t) ? want(NAME[t]) : []

const NO_STRING_MATCH: Target[] = ['minimal', 'linq', 'sqlite']

const ROWS: Row[] = [
  // "not": at the `not` keyword.
  {
    check: 'not over a rule (reference)',
    rego: 'include if not other\nother if input.fruits.price > 100',
    errors: always(['"not" not permitted', 3, 12]),
  },
  {
    check: 'not over a naked ref',
    rego: 'include if {\n  input.fruits.a == 1\n  not input.fruits.ripe\n}',
    errors: always(['"not" not permitted', 5, 3]),
  },
  {
    check: 'not unsupported by the target (reference)',
    rego: 'include if not input.fruits.name == "apple"',
    errors: refusedBy(['minimal', 'linq'], (n) => [
      [`"not" not permitted: unsupported feature "not" for ${n}`, 3, 12],
    ]),
  },
  {
    check: 'not unsupported, inside a body',
    rego: 'include if {\n  input.fruits.a == 1\n  not input.fruits.b > 2\n}',
    errors: refusedBy(['minimal', 'linq'], (n) => [
      [`"not" not permitted: unsupported feature "not" for ${n}`, 5, 3],
    ]),
  },
  {
    check: 'not over a refused built-in: the not at the keyword, the built-in at its name',
    rego: 'include if not startswith(input.fruits.name, "a")',
    errors: (t) => [
      ...(t === 'minimal' || t === 'linq'
        ? ([[`"not" not permitted: unsupported feature "not" for ${NAME[t]}`, 3, 12]] as Want[])
        : []),
      ...(NO_STRING_MATCH.includes(t)
        ? ([[`invalid builtin \`startswith\`: unsupported for ${NAME[t]}`, 3, 16]] as Want[])
        : []),
    ],
  },
  // Statements: at the start of the expression.
  {
    check: 'naked unknown ref (reference)',
    rego: 'include if input.fruits.colour',
    errors: always(['invalid statement "input.fruits.colour"', 3, 12, 'try `input.fruits.colour != false`']),
  },
  {
    check: 'with (reference)',
    rego: 'include if {\n\tfoo with input.fruits.colour as "red"\n}\nfoo if input.fruits.colour',
    errors: always(['"with" not permitted', 4, 2]),
  },
  {
    check: 'every (reference)',
    rego: 'include if every x in input.fruits.xs { x != "y" }',
    errors: always(['"every" not permitted', 3, 12]),
  },
  // Support rules: default and multi-value rules are kept in support modules; rules with else are not
  // partially evaluated at all, so the data ref stays.
  {
    check: 'default rule (reference)',
    rego: 'include if other\ndefault other := 100\nother if input.fruits.price > 100',
    errors: always(['use of default rule in data.filters.other', 3, 12]),
  },
  {
    check: 'default rule named by its full ref',
    rego: 'include if data.filters.other\ndefault other := false\nother if input.fruits.price > 100',
    errors: always(['use of default rule in data.filters.other', 3, 12]),
  },
  {
    check: 'default function',
    rego: 'include if cheap(input.fruits)\ndefault cheap(_) := true\ncheap(f) if f.price < 100',
    errors: always(['use of default rule in data.filters.cheap', 3, 12]),
  },
  {
    check: 'multi-value rule (reference)',
    rego: 'include if mv\nmv contains 1 if input.fruits.price <= 1\nmv contains 2 if input.fruits.price <= 2',
    errors: always(['use of multi-value rule in data.filters.mv', 3, 12]),
  },
  {
    check: 'complete rule with else (reference)',
    rego: 'include if other\nother if input.fruits.price > 100\nelse := input.fruits.extra',
    errors: always([
      'invalid data reference "data.filters.other"',
      3,
      12,
      'has rule "data.filters.other" an `else`?',
    ]),
  },
  {
    check: 'rule with default and else: else wins, the ref stays',
    rego: 'include if other\ndefault other := false\nother if input.fruits.price > 100\nelse := input.fruits.extra',
    errors: always([
      'invalid data reference "data.filters.other"',
      3,
      12,
      'has rule "data.filters.other" an `else`?',
    ]),
  },
  {
    check: 'function with else (reference)',
    rego: 'include if func(input.fruits)\nfunc(f) if f.price > 100\nelse := true',
    errors: always([
      'invalid data reference "data.filters.func(input.fruits)"',
      3,
      12,
      'has function "data.filters.func(...)" an `else`?',
    ]),
  },
  {
    check: 'rule with else compared: its ref is an operand',
    rego: 'include if other == 1\nother := 1 if input.fruits.price > 100\nelse := 2',
    errors: always(['eq: invalid ref operand: data.filters.other', 3, 12]),
  },
  // Built-ins: at the operator's token, or the start of the expression when it has none (`==`).
  {
    check: 'in refused (reference)',
    rego: 'include if input.fruits.name in {"apple", "pear"}',
    errors: refusedBy(['minimal'], (n) => [[`invalid builtin \`in\`: unsupported for ${n}`, 3, 30]]),
  },
  {
    check: 'startswith refused (reference)',
    rego: 'include if startswith(input.fruits.name, "app")',
    errors: refusedBy(NO_STRING_MATCH, (n) => [
      [`invalid builtin \`startswith\`: unsupported for ${n}`, 3, 12],
    ]),
  },
  {
    check: 'unknown built-in (reference)',
    rego: 'include if object.get(input, ["fruits", "colour"], "grey") == input.colour',
    errors: always(['invalid builtin `object.get`', 3, 12]),
  },
  {
    check: 'k, v in (reference)',
    rego: 'include if "k", input.fruits.colour in {"k": "grey", "k2": input.colour}',
    errors: always(['invalid use of "... in ..."', 3, 37]),
  },
  {
    check: 'unknown second (reference)',
    rego: 'include if contains("foobar", input.fruits.colour)',
    errors: (t) =>
      NO_STRING_MATCH.includes(t)
        ? [[`invalid builtin \`contains\`: unsupported for ${NAME[t]}`, 3, 12]]
        : [['rhs of contains must be known', 3, 12]],
  },
  {
    check: 'non-scalar comparison (reference)',
    rego: 'include if input.fruits.colour <= {"green", "blue"}',
    errors: always(['both rhs and lhs non-scalar/non-ground', 3, 32]),
  },
  // Field references: two fields compared; a field tested for existence.
  {
    check: 'field-ref with == (reference)',
    rego: 'include if input.fruits.colour == input.baskets.colour',
    errors: refusedBy(['minimal', 'prisma', 'linq'], (n) => [
      [`reference to field: unsupported feature "field-ref" for ${n}`, 3, 12],
    ]),
  },
  {
    check: 'field-ref with <',
    rego: 'include if input.fruits.colour < input.baskets.colour',
    errors: refusedBy(['minimal', 'prisma', 'linq'], (n) => [
      [`reference to field: unsupported feature "field-ref" for ${n}`, 3, 32],
    ]),
  },
  {
    check: 'field-ref through a local',
    rego: 'include if {\n  x := input.fruits.a\n  x > input.baskets.b\n}',
    errors: refusedBy(['minimal', 'prisma', 'linq'], (n) => [
      [`reference to field: unsupported feature "field-ref" for ${n}`, 5, 5],
    ]),
  },
  {
    check: 'existence-ref (reference: no location)',
    rego: 'include if input.fruits.colour = _',
    errors: refusedBy(['all', 'minimal', 'linq'], (n) => [
      [`existence of field: unsupported feature "existence-ref" for ${n}`, ...NOWHERE],
    ]),
  },
  {
    check: 'existence-ref inside a body',
    rego: 'include if {\n  input.fruits.a == 1\n  input.fruits.colour = _\n}',
    errors: refusedBy(['all', 'minimal', 'linq'], (n) => [
      [`existence of field: unsupported feature "existence-ref" for ${n}`, ...NOWHERE],
    ]),
  },
  // Operands: at the operator's token, else at the operand.
  {
    check: 'nested comparison (reference)',
    rego: 'include if (input.fruits.colour == "orange")>0',
    errors: always(['gt: nested call operand: equal(input.fruits.colour, "orange")', 3, 45]),
  },
  {
    check: 'nested call through a rule (reference)',
    rego: 'user := object.get(input, ["user"], "unknown")\ninclude if user == input.fruits.user',
    errors: always(['eq: nested call operand: object.get(input, ["user"], "unknown")', 3, 9]),
  },
  {
    check: 'ref into another row (reference)',
    rego: 'include if {\n   some other in input.fruits\n   input.fruits.price > other.price\n}',
    errors: always(['gt: invalid ref operand: input.fruits[__local1__1].price', 5, 23]),
  },
  {
    check: 'ref too deep, behind ==',
    rego: 'include if 1 == input.fruits.a.b',
    errors: always(['eq: invalid ref operand: input.fruits.a.b', 3, 17]),
  },
  // What passes the checks but has no translation (regent refuses it rather than dropping it): at
  // the start of the expression.
  {
    check: 'no translation: a string after in',
    rego: 'include if {\n  input.fruits.a == 1\n  input.fruits.colour in "abc"\n}',
    errors: (t) =>
      t === 'minimal'
        ? [['invalid builtin `in`: unsupported for UCAST', 5, 23]]
        : [
            [
              'cannot translate "internal.member_2(input.fruits.colour, "abc")": the collection after "in" is not an array, set or object',
              5,
              3,
            ],
          ],
  },
]

const BODY = {
  input: { a: true, b: false, colour: 'orange' },
  unknowns: ['input.fruits', 'input.baskets'],
}

interface ErrorJson {
  code: string
  message: string
  location?: { file: string; row: number; col: number }
  details?: { details: string }
}

async function errorsOf(rego: string, accept: string, body: unknown = BODY) {
  const policy = { 'filters.rego': `package filters\nimport rego.v1\n${rego}\n` }
  const { app } = compileRoutes({ backend: engineBackend(policy) })
  const res = await app.request('/v1/compile/filters/include', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: accept },
    body: JSON.stringify(body),
  })
  const json = (await res.json()) as { code?: string; message?: string; errors?: ErrorJson[] }
  return { status: res.status, json }
}

function expected(want: Want[]): ErrorJson[] {
  return want.map(([message, row, col, details]) => ({
    code: 'pe_fragment_error',
    message,
    ...(row === 0 && col === 0 ? {} : { location: { file: 'filters.rego', row, col } }),
    ...(details !== undefined ? { details: { details } } : {}),
  }))
}

describe('fragment errors: code, message and location for every check and target', () => {
  for (const row of ROWS) {
    it(row.check, async () => {
      for (const target of ALL_TARGETS) {
        const want = row.errors(target)
        const { status, json } = await errorsOf(row.rego, TARGETS[target])
        const got = { target, status, errors: json.errors ?? [] }
        if (want.length === 0) {
          expect(got).toEqual({ target, status: 200, errors: [] })
        } else {
          expect(got).toEqual({ target, status: 400, errors: expected(want) })
          expect(json.code).toBe('evaluation_error')
          expect(json.message).toBe('error(s) occurred while evaluating query')
        }
      }
    })
  }

  it('a copy compared under not stays as an existence check, refused where existence-ref is', async () => {
    // Without `input.fruits.name = _` the residual would hold for a row missing the field, where
    // the policy is undefined (docs/partial-evaluation.md).
    const rego = 'include if {\n  u := input.fruits.name\n  not u == "apple"\n}'
    const all = await errorsOf(rego, TARGETS.all)
    expect(all.status).toBe(400)
    expect(all.json.errors).toEqual(
      expected([['existence of field: unsupported feature "existence-ref" for UCAST (all)', ...NOWHERE]]),
    )
    const prisma = await errorsOf(rego, TARGETS.prisma)
    expect(prisma.status).toBe(200)
    expect(JSON.stringify(prisma.json)).toContain('"not"')
    const sql = await errorsOf(rego, TARGETS.postgresql)
    expect(sql.status).toBe(200)
    expect(JSON.stringify(sql.json)).toMatch(/NOT fruits\.name = E'apple' AND fruits\.name IS NOT NULL/)
  })

  it('reports once for several targets, one line per refusing target, at the same location', async () => {
    const body = { ...BODY, options: { targetDialects: ['ucast+linq', 'sql+sqlite', 'sql+postgresql'] } }
    const { status, json } = await errorsOf(
      'include if {\n  not startswith(input.fruits.name, "a")\n  input.fruits.c = _\n}',
      'application/vnd.opa.multitarget+json',
      body,
    )
    expect(status).toBe(400)
    expect(json.errors).toEqual(
      expected([
        ['"not" not permitted: unsupported feature "not" for UCAST (LINQ)', 4, 3],
        ['invalid builtin `startswith`: unsupported for UCAST (LINQ)\nunsupported for SQL (sqlite)', 4, 7],
        ['existence of field: unsupported feature "existence-ref" for UCAST (LINQ)', ...NOWHERE],
      ]),
    )
  })
})
