/**
 * The plan JSON has the shape of OPA's IR (v1/ir and its JSON encoding; docs "Intermediate
 * Representation"): top-level keys, statement type names and their exact fields, operand forms,
 * indices into `static`, and locals 0 and 1 standing for input and data. Also: what the planner
 * refuses, each with the construct and its position.
 */
import { describe, expect, it } from 'vitest'
import { indexBuiltins } from '../../../../core/rego/builtins/registry.js'
import { compilePolicy } from '../../../../core/rego/eval/policy.js'
import { PlanError } from '../../../../core/rego/plan/errors.js'
import { type Block, type Policy, STMT_TYPES } from '../../../../core/rego/plan/ir.js'
import { planPolicy } from '../../../../core/rego/plan/planner.js'
import { parseModule } from '../../../../core/rego/syntax/module-parser.js'
import { fromJS, toJSONText } from '../../../../core/rego/values/index.js'
import { runPlan } from './ir-interpreter.js'
import { MORE_PLAN_CASES, PLAN_CASES } from './policies.js'

const BUILTINS = indexBuiltins()

/** Fields of each statement as OPA's JSON names them: `o` marks an operand, `l` a local, `*` anything else. */
const FIELDS: Record<string, Record<string, 'o' | 'l' | '*'>> = {
  ArrayAppendStmt: { value: 'o', array: 'l' },
  AssignIntStmt: { value: '*', target: 'l' },
  AssignVarOnceStmt: { source: 'o', target: 'l' },
  AssignVarStmt: { source: 'o', target: 'l' },
  BlockStmt: { blocks: '*' },
  BreakStmt: { index: '*' },
  CallStmt: { func: '*', args: '*', result: 'l' },
  DotStmt: { source: 'o', key: 'o', target: 'l' },
  EqualStmt: { a: 'o', b: 'o' },
  IsArrayStmt: { source: 'o' },
  IsDefinedStmt: { source: 'l' },
  IsObjectStmt: { source: 'o' },
  IsSetStmt: { source: 'o' },
  IsUndefinedStmt: { source: 'l' },
  LenStmt: { source: 'o', target: 'l' },
  MakeArrayStmt: { capacity: '*', target: 'l' },
  MakeNullStmt: { target: 'l' },
  MakeNumberIntStmt: { value: '*', target: 'l' },
  MakeNumberRefStmt: { Index: '*', target: 'l' },
  MakeObjectStmt: { target: 'l' },
  MakeSetStmt: { target: 'l' },
  NopStmt: {},
  NotEqualStmt: { a: 'o', b: 'o' },
  NotStmt: { block: '*' },
  ObjectInsertOnceStmt: { key: 'o', value: 'o', object: 'l' },
  ObjectInsertStmt: { key: 'o', value: 'o', object: 'l' },
  ObjectMergeStmt: { a: 'l', b: 'l', target: 'l' },
  ResetLocalStmt: { target: 'l' },
  ResultSetAddStmt: { value: 'l' },
  ReturnLocalStmt: { source: 'l' },
  ScanStmt: { source: 'l', key: 'l', value: 'l', block: '*' },
  SetAddStmt: { value: 'o', set: 'l' },
  WithStmt: { local: 'l', path: '*', value: 'o', block: '*' },
}

function planCase(modules: Record<string, string>, entrypoints: string[]): Policy {
  const parsed = Object.fromEntries(
    Object.entries(modules).map(([f, t]) => [
      f,
      parseModule(t, { file: f, ...(f.startsWith('v0') ? { regoVersion: 'v0' as const } : {}) }),
    ]),
  )
  const policy = compilePolicy(parsed)
  return planPolicy(policy.compiler, { required: entrypoints }, BUILTINS)
}

function checkShape(policy: Policy): Set<string> {
  const used = new Set<string>()
  expect(Object.keys(policy).sort()).toEqual(['funcs', 'plans', 'static'])
  expect(Object.keys(policy.static).sort()).toEqual(['builtin_funcs', 'files', 'strings'])
  const callable = new Set([
    ...policy.funcs.funcs.map((f) => f.name),
    ...policy.static.builtin_funcs.map((b) => b.name),
  ])
  for (const b of policy.static.builtin_funcs) expect(b.decl.type).toBe('function')
  const operand = (op: unknown) => {
    const o = op as { type: string; value: unknown }
    expect(Object.keys(o).sort()).toEqual(['type', 'value'])
    if (o.type === 'local') expect(Number.isInteger(o.value) && (o.value as number) >= 0).toBe(true)
    else if (o.type === 'bool') expect(typeof o.value).toBe('boolean')
    else if (o.type === 'string_index') expect(o.value as number).toBeLessThan(policy.static.strings.length)
    else throw new Error(`operand type ${o.type}`)
  }
  const walk = (block: Block) => {
    expect(Object.keys(block)).toEqual(['stmts'])
    for (const s of block.stmts) {
      expect(Object.keys(s).sort()).toEqual(['stmt', 'type'])
      expect(STMT_TYPES).toContain(s.type)
      used.add(s.type)
      const fields = FIELDS[s.type] as Record<string, string>
      const stmt = s.stmt as unknown as Record<string, unknown>
      expect(Object.keys(stmt).sort()).toEqual([...Object.keys(fields), 'col', 'file', 'row'].sort())
      expect(stmt.file as number).toBeLessThan(policy.static.files.length)
      for (const [name, kind] of Object.entries(fields)) {
        if (kind === 'o') operand(stmt[name])
        if (kind === 'l') expect(Number.isInteger(stmt[name])).toBe(true)
      }
      if (s.type === 'CallStmt') {
        expect(callable.has(s.stmt.func), s.stmt.func).toBe(true)
        s.stmt.args.forEach(operand)
      }
      if (s.type === 'BlockStmt') s.stmt.blocks.forEach(walk)
      if (s.type === 'NotStmt' || s.type === 'ScanStmt' || s.type === 'WithStmt') walk(s.stmt.block)
    }
  }
  for (const plan of policy.plans.plans) {
    plan.blocks.forEach(walk)
    const call = plan.blocks[0]?.stmts[0]
    // Plans reach rules through locals 0 (input) and 1 (data), as OPA's plans do.
    if (call?.type === 'CallStmt')
      expect(call.stmt.args).toEqual([
        { type: 'local', value: 0 },
        { type: 'local', value: 1 },
      ])
  }
  for (const func of policy.funcs.funcs) {
    expect(Object.keys(func).sort()).toEqual(['blocks', 'name', 'params', 'path', 'return'])
    expect(func.params.slice(0, 2)).toEqual([0, 1])
    expect(func.name).toMatch(/^g0\.data\./)
    expect(func.path[0]).toBe('g0')
    const last = func.blocks[func.blocks.length - 1]?.stmts
    expect(last?.[last.length - 1]?.type).toBe('ReturnLocalStmt')
    func.blocks.forEach(walk)
  }
  return used
}

describe('plan JSON shape', () => {
  it('matches OPA IR field names and operand forms for every test policy', () => {
    const used = new Set<string>()
    for (const c of [...PLAN_CASES, ...MORE_PLAN_CASES])
      for (const t of checkShape(planCase(c.modules, c.entrypoints))) used.add(t)
    // The policies exercise the statements the planner emits.
    for (const t of ['CallStmt', 'DotStmt', 'ScanStmt', 'NotStmt', 'AssignVarOnceStmt', 'ResultSetAddStmt'])
      expect(used).toContain(t)
    for (const t of [
      'ObjectInsertOnceStmt',
      'SetAddStmt',
      'IsUndefinedStmt',
      'ObjectMergeStmt',
      'ReturnLocalStmt',
    ])
      expect(used).toContain(t)
  })

  it('records files and positions, and interns strings once', () => {
    const policy = planCase(
      { 'x.rego': 'package x\n\nallow if {\n  input.role == "admin"\n  input.role != "x"\n}\n' },
      ['x/allow'],
    )
    expect(policy.static.files).toEqual([{ value: 'x.rego' }])
    const values = policy.static.strings.map((s) => s.value)
    expect(new Set(values).size).toBe(values.length)
    expect(values).toContain('role')
    const body = policy.funcs.funcs[0]?.blocks[0]?.stmts ?? []
    expect(body[0]?.stmt).toMatchObject({ file: 0, row: 4 })
  })
})

describe('plan size', () => {
  it('plans a rule body of 3,000 expressions (the stack grows with nested iterations, not body length)', () => {
    const exprs = Array.from({ length: 3000 }, (_, i) => `  input.a${i % 7} == ${i % 7}`).join('\n')
    const policy = planCase({ 'big.rego': `package big\n\nallow if {\n${exprs}\n}\n` }, ['big/allow'])
    const input = fromJS(Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`a${i}`, i])))
    const rows = runPlan(policy, 'big/allow', input, fromJS({}), BUILTINS)
    expect(rows.map((r) => toJSONText(r))).toEqual(['{"result":true}'])
    const wrong = fromJS({ a0: 0, a1: 1, a2: 2, a3: 3, a4: 4, a5: 5, a6: 7 })
    expect(runPlan(policy, 'big/allow', wrong, fromJS({}), BUILTINS)).toEqual([])
  })

  it('refuses iterations nested too deeply to plan, in one line naming the rule', () => {
    const somes = Array.from({ length: 3000 }, (_, i) => `  some x${i} in input`).join('\n')
    expect(() => planCase({ 'n.rego': `package n\n\nallow if {\n${somes}\n}\n` }, ['n/allow'])).toThrow(
      /n\.rego:3: a rule body this long/,
    )
  })
})

describe('plan refusals', () => {
  it.each([
    [
      'with over rules',
      'package r\nq if input.x\np if {\n  q with data.r.q as true\n}\n',
      'r/p',
      /r\.rego:4: `with` replacing rules/,
    ],
    ['relations', 'package r\np := [x | walk(input, x)]\n', 'r/p', /r\.rego:2: the relation walk\(\)/],
    ['print', 'package r\np if {\n  print("hi")\n}\n', 'r/p', /r\.rego:3: internal\.print\(\)/],
    [
      'rule-name iteration',
      'package r\nsub.a := 1\nsub.b := 2\np contains k if { data.r.sub[k] }\n',
      'r/p',
      /r\.rego:4: iteration over the rules of a package/,
    ],
    [
      'deep ref heads',
      'package r\np[x][y] := 1 if { some x, y in input }\n',
      'r/p',
      /r\.rego:2: a rule head reference with more than one variable part/,
    ],
  ])('refuses %s naming file:line', (_name, text, entrypoint, message) => {
    let error: unknown
    try {
      planCase({ 'r.rego': text }, [entrypoint])
    } catch (err) {
      error = err
    }
    expect(error).toBeInstanceOf(PlanError)
    expect((error as Error).message).toMatch(message)
  })
})
