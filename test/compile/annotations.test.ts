import { describe, expect, it } from 'vitest'
import { AnnotationCache } from '../../compile/annotation-cache.js'
import { maskRuleFromAnnotations, unknownsFromAnnotations } from '../../compile/annotations.js'
import { refToString } from '../../compile/print.js'
import { pathToRef } from '../../compile/refs.js'
import { parseModule } from '../../core/rego/syntax/module-parser.js'

const ref = (p: string) => pathToRef(p)

function unknowns(sources: Record<string, string>, p: string): string[] | unknown {
  const modules = Object.entries(sources).map(([file, text]) => parseModule(text, { file }))
  const r = unknownsFromAnnotations(modules, ref(p))
  return 'errors' in r ? r.errors : r.unknowns.map((u) => refToString(u.value))
}

function mask(sources: Record<string, string>, p: string): string | undefined | unknown {
  const modules = Object.entries(sources).map(([file, text]) => parseModule(text, { file }))
  const r = maskRuleFromAnnotations(modules, ref(p))
  return 'errors' in r ? r.errors : r.maskRule && refToString(r.maskRule.value)
}

describe('unknowns from annotations', () => {
  it('unions the chain: rule, document, package and enclosing subpackages', () => {
    const sources = {
      'a.rego': `# METADATA
# scope: subpackages
# compile:
#   unknowns: [input.outer]
package app
`,
      'b.rego': `# METADATA
# scope: package
# compile:
#   unknowns: [input.fruits]
package app.filters

# METADATA
# scope: document
# compile:
#   unknowns: [input.baskets, input.fruits]
include if input.fruits.a == 1

other if input.x.y == 1
`,
      'c.rego': `package app.filters

# METADATA
# compile:
#   unknowns: [input.users]
include if input.users.a == 1
`,
    }
    expect(unknowns(sources, 'app/filters/include')).toEqual(['input.baskets', 'input.fruits', 'input.outer'])
    expect(unknowns(sources, 'app/filters/other')).toEqual(['input.fruits', 'input.outer'])
    expect(unknowns(sources, 'app/filters/missing')).toEqual([])
  })

  it('reads the older custom: section and rejects refs outside input and data', () => {
    const sources = {
      'filters.rego': `package filters

# METADATA
# custom:
#   unknowns: [input.fruits, "bad ref", future.keywrds]
include if input.fruits.a == 1
`,
    }
    expect(unknowns(sources, 'filters/include')).toEqual([
      {
        code: 'invalid_unknown',
        message: 'unknowns must be valid refs: bad ref',
        location: { file: 'filters.rego', row: 3, col: 1 },
      },
      {
        code: 'invalid_unknown',
        message: 'unknowns must be prefixed with `input` or `data`: future.keywrds',
        location: { file: 'filters.rego', row: 3, col: 1 },
      },
    ])
  })
})

describe('mask_rule from annotations', () => {
  it('takes the first along the chain and resolves relative names in the package', () => {
    const sources = {
      'f.rego': `# METADATA
# scope: package
# compile:
#   mask_rule: data.pkg.wide
package filters

# METADATA
# compile:
#   mask_rule: masks
include if input.fruits.a == 1

plain if input.fruits.a == 1
`,
    }
    expect(mask(sources, 'filters/include')).toBe('data.filters.masks')
    expect(mask(sources, 'filters/plain')).toBe('data.pkg.wide')
    expect(mask({ 'g.rego': 'package g\np if input.x.y == 1\n' }, 'g/p')).toBeUndefined()
  })

  it('reports a custom mask_rule that is not a ref string', () => {
    const sources = {
      'f.rego': 'package f\n\n# METADATA\n# custom:\n#   mask_rule: 3\np if input.x.y == 1\n',
    }
    expect(mask(sources, 'f/p')).toEqual([
      {
        code: 'invalid_mask_rule',
        message: 'mask_rule must be a valid ref string: 3',
        location: { file: 'f.rego', row: 3, col: 1 },
      },
    ])
  })
})

describe('AnnotationCache', () => {
  it('caches per key, remembers nothing-found, skips errors, and purges on new modules', () => {
    const cache = new AnnotationCache<string>(2)
    const modulesA: never[] = []
    const modulesB: never[] = []
    let computed = 0
    const compute =
      (store = true) =>
      () => {
        computed++
        return { value: `v${computed}`, store }
      }
    expect(cache.get(modulesA, 'p', compute())).toEqual({ value: 'v1', hit: false })
    expect(cache.get(modulesA, 'p', compute())).toEqual({ value: 'v1', hit: true })
    expect(cache.get(modulesA, 'err', compute(false)).hit).toBe(false)
    expect(cache.get(modulesA, 'err', compute(false)).hit).toBe(false)
    cache.get(modulesA, 'q', compute())
    cache.get(modulesA, 'r', compute())
    expect(cache.size).toBe(2)
    expect(cache.get(modulesA, 'p', compute()).hit).toBe(false)
    expect(cache.get(modulesB, 'r', compute()).hit).toBe(false)
    expect(cache.stats).toEqual({ hits: 1, misses: 7 })
  })
})
