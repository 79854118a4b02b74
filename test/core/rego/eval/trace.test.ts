import { describe, expect, it } from 'vitest'
import { BufferTracer, prettyTrace } from '../../../../core/rego/eval/trace.js'
import { compile, parseModule } from '../../../../core/rego/index.js'
import { fromJS } from '../../../../core/rego/values/index.js'

async function trace(policy: string, query: string, input: unknown): Promise<string> {
  const compiled = compile({ 't.rego': parseModule(policy, { file: 't.rego' }) }, {})
  const tracer = new BufferTracer()
  await compiled.prepare(query).eval({ input: fromJS(input), tracer })
  return prettyTrace(tracer.events)
}

// A trace line without its location column (as wide as the widest location, then 5 spaces).
function eventText(line: string): string {
  return line.replace(/^\S*\s+/, '')
}

describe('explain traces', () => {
  it('reports the query and each rule body with Enter, Exit and Redo, indented as OPA indents them', async () => {
    const text = await trace('package t\nallow if { input.x == 1; f(2) }\nf(y) if y > 1\n', 'data.t.allow', {
      x: 1,
    })
    const lines = text.split('\n').map(eventText)
    expect(lines[0]).toMatch(/^Enter data\.t\.allow = /)
    expect(lines[1]).toMatch(/^\| Eval data\.t\.allow = /)
    expect(lines).toContain('| Enter data.t.allow')
    expect(lines).toContain('| Index data.t.allow (matched 1 rule, early exit)')
    expect(lines).toContain('| | Index data.t.f (matched 1 rule, early exit)')
    expect(lines).toContain('| | Enter data.t.f')
    expect(lines).toContain('| | | Exit data.t.f early')
    expect(lines).toContain('| | Redo data.t.f')
    expect(lines).toContain('| | Exit data.t.allow early')
    expect(lines).toContain('| Redo data.t.allow')
    // Enter before the body's expressions, Exit after them.
    expect(lines.indexOf('| Enter data.t.allow')).toBeLessThan(lines.indexOf('| | Exit data.t.allow early'))
    expect(lines.at(-3)).toMatch(/^\| Exit data\.t\.allow = /)
    expect(lines.at(-2)).toMatch(/^Redo data\.t\.allow = /)
  })

  it('has no Exit for a rule whose body fails, and a Fail for the failing expression', async () => {
    const text = await trace('package t\nallow if input.x > 1\n', 'data.t.allow', { x: 0 })
    const lines = text.split('\n').map(eventText)
    expect(lines).toContain('| Enter data.t.allow')
    expect(lines.some((l) => l.startsWith('| | Fail'))).toBe(true)
    expect(lines).not.toContain('| | Exit data.t.allow')
  })

  it('reports what rule indexing chose, including no rule at all', async () => {
    const text = await trace('package t\nallow if input.x == 1\nallow if input.x == 2\n', 'data.t.allow', {
      x: 3,
    })
    const lines = text.split('\n').map(eventText)
    expect(lines).toContain('| Index data.t.allow (matched 0 rules, early exit)')
    expect(lines.some((l) => l.includes('Enter data.t.allow'))).toBe(true) // the query's own Enter
    expect(lines).not.toContain('| Enter data.t.allow')
  })

  it('lays the trace out as a table: locations padded to the widest, 5 spaces, no trailing blanks', async () => {
    const text = await trace('package t\nallow if input.x == 1\n', 'data.t.allow', { x: 1 })
    const lines = text.split('\n')
    expect(lines[0]).toBe('query:1      Enter data.t.allow = _')
    expect(lines).toContain('t.rego:2     | | Eval input.x = 1')
    for (const l of lines) expect(l).toBe(l.trimEnd())
  })

  it('marks the Exit of a rule that early exit decides, and only that', async () => {
    const text = await trace(
      'package t\np if input.x == 1\nf(a) := b if b := a + 1\nq if f(1) == 2\n',
      'data.t.p; data.t.q',
      {
        x: 1,
      },
    )
    const lines = text.split('\n').map(eventText)
    expect(lines).toContain('| | Exit data.t.p early')
    // A function whose value is not a constant is not early-exit: OPA prints its Exit plain.
    expect(lines).toContain('| | | Exit data.t.f')
    expect(lines).not.toContain('| | | Exit data.t.f early')
  })

  it("prints rewritten local variables by the user's names when given the compiler's map, as OPA does", async () => {
    const compiled = compile(
      { 't.rego': parseModule('package t\np if {\n\tx := 1\n\tx == 1\n}\n', { file: 't.rego' }) },
      {},
    )
    const tracer = new BufferTracer({ varValues: true, names: compiled.compiler.rewrittenVars })
    await compiled.prepare('data.t.p').eval({ tracer })
    const lines = prettyTrace(tracer.events).split('\n').map(eventText)
    expect(lines.some((l) => /^\| \| Eval x = 1 +\{\}$/.test(l))).toBe(true)
    expect(lines.some((l) => /^\| \| Redo x = 1 +\{x: 1\}$/.test(l))).toBe(true)
    expect(lines.some((l) => l.includes('__local'))).toBe(false)
  })

  it('renders a trace of hundreds of thousands of events (a traced loop), columns aligned', () => {
    const location = { file: 'p.rego', row: 1, col: 1, offset: 0 }
    const events = Array.from({ length: 300_000 }, (_, i) => ({
      op: 'Eval' as const,
      text: `x = ${i}`,
      location,
      depth: 1,
    }))
    const lines = prettyTrace(events).split('\n')
    expect(lines).toHaveLength(300_000)
    expect(lines[299_999]).toBe('p.rego:1     | Eval x = 299999')
  })
})
