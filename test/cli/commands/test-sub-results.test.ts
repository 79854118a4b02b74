/**
 * The cases of a parameterized test as OPA's tester builds them (`tester.SubResult`): from the
 * test's object, plus the cases its `internal.test_case` calls reached without a value (failed).
 */
import { describe, expect, it } from 'vitest'
import { eachSubResult, subResults, subResultsDoc } from '../../../cli/commands/test-sub-results.js'
import { fromJS, ObjectValue, type Value } from '../../../core/rego/values/index.js'

const names = (cases: ReturnType<typeof subResults>['cases']) =>
  [...eachSubResult(cases)].map(([path, sr]) => `${path.join('/')}=${sr.fail ? 'FAIL' : 'PASS'}`)

describe('subResults', () => {
  it('passes cases whose value is true and fails other values', () => {
    const r = subResults(fromJS({ a: true, b: false, c: 1 }), [])
    expect(r.fail).toBe(true)
    expect(names(r.cases)).toEqual(['a=PASS', 'b=FAIL', 'c=FAIL'])
  })

  it('fails a reached case that has no value, and its parents', () => {
    const value = fromJS({ one: { foo: true } })
    const reached = [fromJS(['one', 'bar']), fromJS(['two', 'foo']), fromJS(['one', 'foo'])]
    const r = subResults(value, reached)
    expect(r.fail).toBe(true)
    expect(names(r.cases)).toEqual(['one=FAIL', 'one/bar=FAIL', 'one/foo=PASS', 'two=FAIL', 'two/foo=FAIL'])
  })

  it('passes with no cases at all, and names non-string keys by their JSON', () => {
    expect(subResults(new ObjectValue(), [])).toEqual({ fail: false, cases: new Map() })
    const value = new ObjectValue().set(fromJS(1), true).set(fromJS(['a', '<']), true)
    expect(names(subResults(value, [fromJS([['a', '<']])]).cases)).toEqual(['1=PASS', '["a","\\u003c"]=PASS'])
  })

  it('renders sub_results as OPA does: name, fail, nested, keys sorted', () => {
    const r = subResults(fromJS({ b: { y: false, x: true }, a: true }) as Value, [])
    expect(subResultsDoc(r.cases)).toEqual({
      a: { name: 'a', fail: undefined, sub_results: undefined },
      b: {
        name: 'b',
        fail: true,
        sub_results: {
          x: { name: 'x', fail: undefined, sub_results: undefined },
          y: { name: 'y', fail: true, sub_results: undefined },
        },
      },
    })
  })
})
