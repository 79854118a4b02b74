/**
 * Evaluation of not-bodies (`import future.keywords.not`): the negation of a whole body, including
 * what the compiler expands out of `not expr`; partial evaluation of them.
 */
import { describe, expect, it } from 'vitest'
import { exprToString } from '../../../../compile/print.js'
import { partialEvaluate } from '../../../../core/rego/eval/partial.js'
import { compile, type Policy, parseModule } from '../../../../core/rego/index.js'
import { fromJS, toJS } from '../../../../core/rego/values/index.js'

const IMPORT = 'package p\n\nimport future.keywords.not\n\n'

function policyOf(src: string): Policy {
  return compile({ 'p.rego': parseModule(src, { file: 'p.rego' }) }, {})
}

function dataP(p: Policy, input?: unknown): unknown {
  const run = p.prepare('x := data.p').evalSync(input !== undefined ? { input: fromJS(input) } : {})
  return toJS(run.results[0]?.bindings.get('x') as never)
}

// OPA's documentation example: `lookup` is undefined for an unknown user, so legacy negation fails
// the rule while the not-body negates the whole expansion and succeeds.
const LOOKUP = `
restricted if {
	not admin(lookup(input.user))
}

groups := {"admin": ["alice"], "user": ["bob"]}

lookup(user) := group if {
	some group, members in groups
	user in members
}

admin(group) if group in ["admin", "sudo"]
`

describe('not-bodies: evaluation', () => {
  it('negates the whole expansion of `not f(g(x))` under the import, not only the last call', () => {
    const withImport = policyOf(`${IMPORT}${LOOKUP}`)
    const legacy = policyOf(`package p\n${LOOKUP}`)
    expect(dataP(withImport, { user: 'cesar' })).toMatchObject({ restricted: true })
    expect(dataP(legacy, { user: 'cesar' })).not.toHaveProperty('restricted')
    // Defined and true inside: the negation fails in both.
    expect(dataP(withImport, { user: 'alice' })).not.toHaveProperty('restricted')
    expect(dataP(withImport, { user: 'bob' })).toMatchObject({ restricted: true })
  })

  it('negates explicit bodies: no assignment of the body vars satisfies every expression', () => {
    const p = policyOf(`${IMPORT}deny contains server.name if {
	some server in input.servers
	not {
		listener := server.listener
		listener.port == 443
		listener.protocol == "tcp"
	}
}

c if not {
	true
	false
}

d if not {
	some x in [1, 2, 3]
	x == 0
}

e if not {
	some x in [1, 2, 3]
	x == 2
}
`)
    const servers = [
      { name: 'web1', listener: { port: 80, protocol: 'tcp' } },
      { name: 'web2', listener: { port: 443, protocol: 'tcp' } },
      { name: 'web3', listener: { port: 443, protocol: 'udp' } },
      { name: 'web4' },
    ]
    expect(dataP(p, { servers })).toEqual({ deny: ['web1', 'web3', 'web4'], c: true, d: true })
  })

  it('reads outer vars inside, nests, and binds nothing outside', () => {
    const p = policyOf(`${IMPORT}r if {
	y := 2
	not {
		y == 1
	}
	not {
		not {
			y == 2
		}
	}
}

s if {
	not {
		z := input.missing
		not {
			z == 1
		}
	}
}
`)
    expect(dataP(p, {})).toEqual({ r: true, s: true })
  })

  it('applies `with` on the not to its whole body', () => {
    const p = policyOf(`${IMPORT}a if not {
	input.x == 1
} with input.x as 2

b if not input.x == 1 with input.x as 1

c if not f(input.x) with input.x as 5

f(x) if x > 3
`)
    expect(dataP(p, { x: 1 })).toEqual({ a: true })
  })

  it('is true over undefined refs and false when the body holds', () => {
    const p = policyOf(`${IMPORT}a if not input.a.b.c == 1

b if not input.list[_] > 2

c if not count(input.missing) > 0
`)
    expect(dataP(p, {})).toEqual({ a: true, b: true, c: true })
    expect(dataP(p, { a: { b: { c: 1 } }, list: [1, 3], missing: [1] })).toEqual({})
  })
})

describe('not-bodies: partial evaluation', () => {
  async function residual(src: string, query: string) {
    const policy = policyOf(src)
    const result = await partialEvaluate(policy, query, { unknowns: ['input'] })
    return result.queries.map((b) => b.map(exprToString).join('; '))
  }

  it('complements a body over unknowns into one query per negated expression', async () => {
    expect(await residual(`${IMPORT}r if not { input.x == 1; input.y == 2 }\n`, 'data.p.r')).toEqual([
      'not input.x = 1',
      'not input.y = 2',
    ])
  })

  it('answers a body that cannot hold without saving anything', async () => {
    expect(await residual(`${IMPORT}r if not { input.x == 1; false }\n`, 'data.p.r')).toEqual([''])
  })

  it('keeps a body that cannot be inlined as a negated support rule', async () => {
    const policy = policyOf(`${IMPORT}s if { not f(input.z) }\nf(x) if x > 3\n`)
    const result = await partialEvaluate(policy, 'data.p.s', { unknowns: ['input'] })
    expect(result.queries.map((b) => b.map(exprToString).join('; '))).toEqual([
      expect.stringMatching(/^not data\.partial\.__not\w+__$/),
    ])
    expect(result.support).toHaveLength(1)
  })
})
