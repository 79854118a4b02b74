/**
 * The cases of a parameterized test (`test_x[case] if { ... }`), as OPA's tester reports them
 * (`tester.SubResult`): a case passes when its value in the test's object is `true`; a case the
 * test reached (its `internal.test_case` call ran) but whose body then failed has no value and
 * fails. Cases nest for heads with several keys (`test_x[a][b]`). Names are the key strings OPA
 * uses: a string key as it is, any other key as compact JSON.
 */
import { isArray, isObject, toJSONText, type Value } from '../../core/rego/values/index.js'
import type { Doc } from '../presentation.js'

/** One case and, for nested keys, its own cases. */
export interface SubResult {
  name: string
  fail: boolean
  subResults: SubResultMap
}

/** Cases by name. */
export type SubResultMap = Map<string, SubResult>

/**
 * The cases of a test whose value is `value` (its object) and that reached `reached` (each the
 * array of keys `internal.test_case` saw); `fail` is true when any case failed.
 */
export function subResults(value: Value, reached: readonly Value[]): { fail: boolean; cases: SubResultMap } {
  const cases: SubResultMap = new Map()
  let fail = false
  if (isObject(value)) {
    for (const [k, v] of value.entries()) {
      const name = caseName(k)
      const sr = subResult(name, v)
      cases.set(name, sr)
      if (sr.fail) fail = true
    }
  }
  for (const path of reached) {
    if (isArray(path) && markReached(cases, path.map(caseName), 0)) fail = true
  }
  return { fail, cases }
}

function subResult(name: string, v: Value): SubResult {
  // NOTE(regent): as OPA's tester, which reads a null value as a missing one: no name, passed.
  if (v === null) return { name: '', fail: false, subResults: new Map() }
  if (isObject(v)) {
    const nested = subResults(v, [])
    return { name, fail: nested.fail, subResults: nested.cases }
  }
  return { name, fail: v !== true, subResults: new Map() }
}

/** A reached case without a value is a failed one (OPA's `SubResultMap.update`); true when it failed. */
function markReached(cases: SubResultMap, path: string[], i: number): boolean {
  const name = path[i]
  if (name === undefined) return true
  let entry = cases.get(name)
  if (!entry) {
    entry = { name, fail: true, subResults: new Map() }
    cases.set(name, entry)
  }
  if (i === path.length - 1) return entry.fail
  const failed = markReached(entry.subResults, path, i + 1)
  if (failed) entry.fail = true
  return failed
}

/** A key as OPA names a case: strings as they are, anything else as Go's compact JSON. */
function caseName(key: Value): string {
  return typeof key === 'string' ? key : toJSONText(key, { escapeHTML: true })
}

/** Every case depth-first in name order, with the names leading to it. */
export function* eachSubResult(cases: SubResultMap, prefix: string[] = []): Generator<[string[], SubResult]> {
  for (const name of [...cases.keys()].sort(goStringOrder)) {
    const sr = cases.get(name) as SubResult
    const path = [...prefix, name]
    yield [path, sr]
    yield* eachSubResult(sr.subResults, path)
  }
}

/** Go sorts strings by bytes (UTF-8), which code point order matches. */
function goStringOrder(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0) as number)
  const y = [...b].map((c) => c.codePointAt(0) as number)
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number)
  }
  return x.length - y.length
}

/** The cases in OPA's JSON (`sub_results`: name, fail, nested sub_results; keys sorted). */
export function subResultsDoc(cases: SubResultMap): Doc {
  const doc: { [key: string]: Doc } = {}
  for (const name of [...cases.keys()].sort(goStringOrder)) {
    const sr = cases.get(name) as SubResult
    doc[name] = {
      name: sr.name || undefined,
      fail: sr.fail || undefined,
      sub_results: sr.subResults.size > 0 ? subResultsDoc(sr.subResults) : undefined,
    }
  }
  return doc
}
