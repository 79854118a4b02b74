/**
 * The type checker (compiler/stages/check-types.ts) against OPA's checker: programs OPA rejects
 * with a `rego_type_error`, each with the message, location and detail lines OPA prints, and
 * programs OPA accepts, which must compile without error (a false error is worse than a miss).
 */
import { describe, expect, it } from 'vitest'
import { DEFAULT_BUILTINS } from '../../../../core/rego/builtins/registry.js'
import { lookupFromDeclarations } from '../../../../core/rego/compiler/builtin-info.js'
import { Compiler } from '../../../../core/rego/compiler/compiler.js'
import { RegoErrors } from '../../../../core/rego/errors.js'
import { parseModule } from '../../../../core/rego/index.js'

const builtins = lookupFromDeclarations(DEFAULT_BUILTINS)

/** The errors of compiling `src` as test.rego, each as `RegoError.toString()` prints it. */
function errorsOf(src: string): string[] {
  try {
    new Compiler({ builtins }).compile({ 'test.rego': parseModule(src, { file: 'test.rego' }) })
    return []
  } catch (e) {
    if (e instanceof RegoErrors) return e.errors.map((x) => x.toString())
    throw e
  }
}

const rejected: { note: string; src: string; want: string }[] = [
  {
    note: 'a local var bound to a literal, passed to a built-in',
    src: 'p if {\n\tx := 1\n\tupper(x) == "a"\n}',
    want: 'test.rego:5: rego_type_error: upper: invalid argument(s)\n\thave: (number, ???)\n\twant: (x: string, y: string)',
  },
  {
    note: 'a built-in called as a statement: every argument shown, the result type last',
    src: 'p if {\n\tx := 1\n\tstartswith(x, "a")\n}',
    want: 'test.rego:5: rego_type_error: startswith: invalid argument(s)\n\thave: (number, string)\n\twant: (search: string, base: string, result: boolean)',
  },
  {
    note: "a built-in's result flowing into another built-in",
    src: 'p if {\n\tn := count(input.xs)\n\tlower(n) == "1"\n}',
    want: 'test.rego:5: rego_type_error: lower: invalid argument(s)\n\thave: (number, ???)\n\twant: (x: string, y: string)',
  },
  {
    note: 'the type of a complete rule',
    src: 'p := 1\n\nq if upper(p) == "A"',
    want: 'test.rego:5: rego_type_error: upper: invalid argument(s)\n\thave: (number, ???)\n\twant: (x: string, y: string)',
  },
  {
    note: "a function's result, from its body",
    src: 'f(x) := x + 1\n\nq if upper(f(1)) == "2"',
    want: 'test.rego:5: rego_type_error: upper: invalid argument(s)\n\thave: (number, ???)\n\twant: (x: string, y: string)',
  },
  {
    note: "a function's argument type, from the built-in its body passes it to",
    src: 'f(x) := upper(x)\n\nq if f(1) == "A"',
    want: 'test.rego:5: rego_type_error: data.test.f: invalid argument(s)\n\thave: (number, ???)\n\twant: (string, string)',
  },
  {
    note: 'the type of a partial set rule',
    src: 's contains "a"\n\nq if upper(s) == "A"',
    want: 'test.rego:5: rego_type_error: upper: invalid argument(s)\n\thave: (set[string], ???)\n\twant: (x: string, y: string)',
  },
  {
    note: "a function's argument type, from a unification in its body",
    src: 'f(x) if x == 1\n\nq if f("a")',
    want: 'test.rego:5: rego_type_error: data.test.f: invalid argument(s)\n\thave: (string)\n\twant: (number, boolean)',
  },
  {
    note: 'types learnt inside an `every` body',
    src: 'p if {\n\tevery x in [1, 2] {\n\t\ty := x + 1\n\t\tupper(y) == "a"\n\t}\n}',
    want: 'test.rego:6: rego_type_error: upper: invalid argument(s)\n\thave: (number, ???)\n\twant: (x: string, y: string)',
  },
  {
    note: 'match error between two literals (== in a rule body is unification)',
    src: 'same if 1 == "1"',
    want: 'test.rego:3: rego_type_error: match error\n\tleft  : number\n\tright : string',
  },
  {
    note: 'match error between objects with different keys',
    src: 'user1 := {"name": "joe", "age": 55}\n\nuser2 := {"name": "jane"}\n\nsame_user if user1 == user2',
    want: 'test.rego:7: rego_type_error: match error\n\tleft  : object<age: number, name: string>\n\tright : object<name: string>',
  },
  {
    note: 'match error between arrays of different lengths',
    src: 'p if [1, 2] == [1, 2, 3]',
    want: 'test.rego:3: rego_type_error: match error\n\tleft  : array<number, number>\n\tright : array<number, number, number>',
  },
  {
    note: 'match error on a var unified again with another type',
    src: 'p if {\n\tx := 1\n\tx = "s"\n}',
    want: 'test.rego:5: rego_type_error: match error\n\tleft  : number\n\tright : string',
  },
  {
    note: 'a function used as a value',
    src: 'f(x) := upper(x)\n\nr := f',
    want: 'test.rego:5: rego_type_error: undefined ref: data.test.f\n\tdata.test.f\n\t^^^^^^^^^^^\n\thave: (string) => string',
  },
  {
    note: 'a ref into a function (OPA compile_test "must apply"): a function has no keys',
    src: 'f(x) := upper(x)\n\nr if f.x',
    want: 'test.rego:5: rego_type_error: undefined ref: data.test.f.x\n\tdata.test.f.x\n\t^^^^^^^^^^^\n\thave: (string) => string',
  },
  {
    note: 'a rule called as a function',
    src: 'p := 1\n\nq if p(1)',
    want: 'test.rego:5: rego_type_error: undefined function data.test.p',
  },
  {
    note: 'a function called with too many arguments',
    src: 'f(x) := 1\n\nq if f(1, 2) == 1',
    want: 'test.rego:5: rego_type_error: function data.test.f has arity 1, got 2 arguments',
  },
  {
    note: 'a ref into a scalar rule',
    src: 'p := 1\n\nq if p.foo == 1',
    want: 'test.rego:5: rego_type_error: undefined ref: data.test.p.foo\n\tdata.test.p.foo\n\t^^^^^^^^^^^\n\thave: number',
  },
  {
    note: 'a ref to a key an object literal does not have, shown with the var as written',
    src: 'p if {\n\ty := {"a": 1}\n\ty.b == 1\n}',
    want: 'test.rego:5: rego_type_error: undefined ref: y.b\n\ty.b\n\t  ^\n\t  have: "b"\n\t  want (one of): ["a"]',
  },
  {
    note: 'a string key into an array',
    src: 'p if {\n\ty := [1]\n\ty.b == 1\n}',
    want: 'test.rego:5: rego_type_error: undefined ref: y.b\n\ty.b\n\t  ^\n\t  have: "b"\n\t  want (type): number',
  },
  {
    note: 'an object literal holding a var: a static property of the var type',
    src: 'p if {\n\tx := 1\n\to := {"a": x}\n\tupper(o.a) == "A"\n}',
    want: 'test.rego:6: rego_type_error: upper: invalid argument(s)\n\thave: (number, ???)\n\twant: (x: string, y: string)',
  },
  {
    note: 'match error between an object literal holding a var and another object',
    src: 'p if {\n\tx := 1\n\to := {"a": x}\n\to == {"a": "s"}\n}',
    want: 'test.rego:6: rego_type_error: match error\n\tleft  : object<a: number>\n\tright : object<a: string>',
  },
  {
    note: "an array comprehension: an array of its term's type",
    src: 'p if {\n\txs := [x | some x in [1, 2]]\n\tupper(xs[0]) == "A"\n}',
    want: 'test.rego:5: rego_type_error: upper: invalid argument(s)\n\thave: (number, ???)\n\twant: (x: string, y: string)',
  },
  {
    note: "a set comprehension: a set of its term's type",
    src: 'p if {\n\ts := {x | some x in [1, 2]}\n\tupper(s) == "A"\n}',
    want: 'test.rego:5: rego_type_error: upper: invalid argument(s)\n\thave: (set[number], ???)\n\twant: (x: string, y: string)',
  },
  {
    note: 'a set comprehension against a set literal of another type',
    src: 'p if {\n\ts := {x | some x in [1, 2]}\n\ts == {"a"}\n}',
    want: 'test.rego:5: rego_type_error: match error\n\tleft  : set[number]\n\tright : set[string]',
  },
  {
    note: 'an object comprehension: keyed by its key type, holding its value type',
    src: 'p if {\n\to := {k: 1 | some k in ["a"]}\n\tupper(o.a) == "A"\n}',
    want: 'test.rego:5: rego_type_error: upper: invalid argument(s)\n\thave: (number, ???)\n\twant: (x: string, y: string)',
  },
  {
    note: "a partial object rule: an object keyed by the key var's type",
    src: 'o[k] := 1 if some k in ["a"]\n\nq if upper(o.a) == "A"',
    want: 'test.rego:5: rego_type_error: upper: invalid argument(s)\n\thave: (number, ???)\n\twant: (x: string, y: string)',
  },
  {
    note: 'a ref through a partial object into its scalar values',
    src: 'o[k] := 1 if some k in ["a"]\n\nq if o.a.b == 1',
    want: 'test.rego:5: rego_type_error: undefined ref: data.test.o.a.b\n\tdata.test.o.a.b\n\t^^^^^^^^^^^^^\n\thave: number',
  },
  {
    note: "a constant key of another type than a partial object's keys",
    src: 'o[k] := 1 if some k in ["a"]\n\nq if o[1] == 1',
    want: 'test.rego:5: rego_type_error: undefined ref: data.test.o[1]\n\tdata.test.o[1]\n\t            ^\n\t            have: 1\n\t            want (type): string',
  },
  {
    note: 'a ref head with a var and a constant after it: nested objects',
    src: 'r[k].v := 1 if some k in ["a"]\n\nq if upper(r.a.v) == "A"',
    want: 'test.rego:5: rego_type_error: upper: invalid argument(s)\n\thave: (number, ???)\n\twant: (x: string, y: string)',
  },
  {
    note: 'unification inside arrays',
    src: 'p if {\n\t[x, y] := [1, "a"]\n\tx == y\n}',
    want: 'test.rego:5: rego_type_error: match error\n\tleft  : number\n\tright : string',
  },
  {
    note: 'unification of an object pattern',
    src: 'p if {\n\t{"a": x} := {"a": 1}\n\tupper(x) == "A"\n}',
    want: 'test.rego:5: rego_type_error: upper: invalid argument(s)\n\thave: (number, ???)\n\twant: (x: string, y: string)',
  },
  {
    note: "an array pattern bound to a function's result",
    src: 'f(x) := [x, 1]\n\np if {\n\t[a, b] := f(1)\n\tupper(b) == "A"\n}',
    want: 'test.rego:7: rego_type_error: upper: invalid argument(s)\n\thave: (number, ???)\n\twant: (x: string, y: string)',
  },
  {
    note: "a function's result bound as a call's output pattern",
    src: 'f(x) := [x, 1]\n\np if {\n\tf(1, [a, b])\n\tupper(b) == "A"\n}',
    want: 'test.rego:7: rego_type_error: upper: invalid argument(s)\n\thave: (number, ???)\n\twant: (x: string, y: string)',
  },
  {
    note: "a function's result through a local var into a call",
    src: 'f(x) := x + 1\n\np if {\n\ty := f(1)\n\tupper(y) == "A"\n}',
    want: 'test.rego:7: rego_type_error: upper: invalid argument(s)\n\thave: (number, ???)\n\twant: (x: string, y: string)',
  },
  {
    note: 'an expression with a `with` modifier is checked as any other',
    src: 'p := 1\n\nq if upper(p) == "A" with input as {}',
    want: 'test.rego:5: rego_type_error: upper: invalid argument(s)\n\thave: (number, ???)\n\twant: (x: string, y: string)',
  },
  {
    note: 'a type learnt from an expression with a `with` modifier',
    src: 'p := 1\n\nq if {\n\tx := p with input as {}\n\tupper(x) == "A"\n}',
    want: 'test.rego:7: rego_type_error: upper: invalid argument(s)\n\thave: (number, ???)\n\twant: (x: string, y: string)',
  },
  {
    note: 'a function replaced by one of another arity, at the `with`',
    src: 'mock(_, _) := 3\n\nt if count([1], n) with count as mock',
    want: 'test.rego:5: rego_type_error: count: arity mismatch\n\thave: (any, any)\n\twant: (collection: any<string, array[any], object[any: any], set[any]>)',
  },
  {
    note: 'a function replaced by one taking another type, at the `with`',
    src: 'mock(x) := x + 1\n\nt if count([1], n) with count as mock',
    want: 'test.rego:5: rego_type_error: count: arity mismatch\n\thave: (number)\n\twant: (collection: any<string, array[any], object[any: any], set[any]>)',
  },
  {
    note: "a built-in replaced by a built-in taking another type: the replacement's types unnamed",
    src: 't if upper("a") == "A" with upper as abs',
    want: 'test.rego:3: rego_type_error: upper: arity mismatch\n\thave: (number)\n\twant: (x: string)',
  },
  {
    note: 'a composite literal against a union: its constant parts are still checked',
    src: 'p if sum([1, "a"]) == 1',
    want: 'test.rego:3: rego_type_error: sum: invalid argument(s)\n\thave: (array<number, string>, ???)\n\twant: (collection: any<array[number], set[number]>, n: number)',
  },
  {
    note: 'a var inside a composite argument of a type that is no union keeps its type',
    src: 'p if {\n\tx := 1\n\tsprintf("%v", [x]) == "1"\n\tupper(x) == "1"\n}',
    want: 'test.rego:6: rego_type_error: upper: invalid argument(s)\n\thave: (number, ???)\n\twant: (x: string, y: string)',
  },
  {
    note: 'an index past the end of a fixed-length array',
    src: 'p if {\n\tx := [1, 2]\n\tx[5]\n}',
    want: 'test.rego:5: rego_type_error: undefined ref: x[5]\n\tx[5]\n\t  ^\n\t  have: 5\n\t  want (type): number',
  },
  {
    note: 'a negative index into an array',
    src: 'p if {\n\tx := [1, 2]\n\tx[-1]\n}',
    want: 'test.rego:5: rego_type_error: undefined ref: x[-1]\n\tx[-1]\n\t  ^\n\t  have: -1\n\t  want (type): number',
  },
  {
    note: 'a set member of a type the set cannot hold',
    src: 'p if {\n\ts := {"a"}\n\ts[1]\n}',
    want: 'test.rego:5: rego_type_error: undefined ref: s[1]\n\ts[1]\n\t  ^\n\t  have: 1\n\t  want (type): string',
  },
  {
    note: 'a pattern with an unbound var whose constant part does not fit',
    src: 'p if {\n\t[x, 1] = [2, "a"]\n}',
    want: 'test.rego:4: rego_type_error: match error\n\tleft  : array<???, number>\n\tright : array<number, string>',
  },
  {
    note: 'an object pattern with an unbound var whose constant part does not fit',
    src: 'p if {\n\t{"a": x, "b": 1} = {"a": 1, "b": "s"}\n}',
    want: 'test.rego:4: rego_type_error: match error\n\tleft  : object<a: ???, b: number>\n\tright : object<a: number, b: string>',
  },
  {
    note: 'a function argument typed by its use under `not`',
    src: 'f(x) if not startswith(x, "a")\n\nq if f(1)',
    want: 'test.rego:5: rego_type_error: data.test.f: invalid argument(s)\n\thave: (number)\n\twant: (string, boolean)',
  },
  {
    note: 'a var bound before a negated expression is checked inside it',
    src: 'p if {\n\tx := 1\n\tnot startswith(x, "a")\n}',
    want: 'test.rego:5: rego_type_error: startswith: invalid argument(s)\n\thave: (number, string)\n\twant: (search: string, base: string, result: boolean)',
  },
]

const accepted: { note: string; src: string }[] = [
  { note: 'input without a schema is any', src: 'q if {\n\tx := input.a\n\tx == 1\n\tupper(x) == "A"\n}' },
  { note: 'a function argument used as a ref is any', src: 'h(a) if a.b == 1\n\nv if h(1)' },
  { note: 'a function argument tested for membership is any', src: 'g(a) if a in {"x"}\n\nu if g(1)' },
  { note: 'an unused function argument is any', src: 'g(_) := 1\n\nu if g("x") == 1' },
  {
    note: 'a rule whose definitions differ in type',
    src: 'p := 1 if input.a\n\np := "a" if not input.a\n\nq if p == "a"',
  },
  {
    note: 'a default object and an input value',
    src: 'default cfg := {}\n\ncfg := input.c\n\nq if cfg.x == 1',
  },
  {
    note: 'null against a union holding null',
    src: 'p := null if input.x\n\np := 1 if not input.x\n\nq if p == null',
  },
  {
    note: 'a function whose definitions take different types',
    src: 'f(x) := upper(x) if is_string(x)\n\nf(x) := x + 1 if is_number(x)\n\nq if f(1) == 2\n\nr if f("a") == "A"',
  },
  { note: 'a set rule against a set literal', src: 's contains 1\n\ns contains 2\n\nt if s == {1, 2}' },
  { note: 'an empty array against an array of any', src: 'xs := [x | some x in input.a]\n\nq if xs == []' },
  { note: 'a composite function argument', src: 'f([a, b]) := a\n\nq if f([1, 2]) == 1' },
  { note: "walk's output array", src: 'q if {\n\twalk(input, [p, v])\n\tcount(p) > 0\n\tv == 1\n}' },
  { note: 'a var bound by a ref key', src: 'q if {\n\tsome k\n\tinput.o[k] == 1\n\tupper(k) == "A"\n}' },
  { note: 'a comprehension against a literal', src: 'q if [x | some x in [1]] == [1]' },
  {
    note: 'a function replaced by a function with `with`',
    src: 'mock(_) := 3\n\nt if count([1]) == 3 with count as mock',
  },
  { note: 'a chain of vars keeps the type', src: 'q if {\n\tx := 1\n\ty := x\n\ty == 2\n}' },
  {
    note: 'a function called from a rule and an argument used with another built-in after a check',
    src: 'f(x) if {\n\tis_string(x)\n\tstartswith(x, "a")\n}\n\nq if f(input.y)',
  },
  { note: 'objects with the same keys', src: 'a := {"k": 1}\n\nq if a == {"k": 2}' },
  {
    note: 'a function value passed to `with` as a data replacement',
    src: 'f(x) := x\n\np := 1\n\nq if p == 1 with data.test.p as 2',
  },
  {
    note: "a var inside an array passed where a union is taken fits (OPA's unify1 in union mode)",
    src: 'p if {\n\ta := "foo"\n\ts := sum([1, a])\n}',
  },
  {
    note: 'a number var inside the array concat joins',
    src: 'p if {\n\tn := 1\n\tconcat(",", [n, "a"]) == "1,a"\n}',
  },
  {
    note: 'a var passed inside an array where a union is taken is widened',
    src: 'p if {\n\tx := 1\n\tcount([x]) == 1\n\tupper(x) == "A"\n}',
  },
  {
    note: 'a constant key of the type of an object comprehension keys',
    src: 'q if {\n\to := {k: 1 | some k in ["a", 2]}\n\to[2] == 1\n\to.a == 1\n}',
  },
  { note: 'an empty array literal is an array of any', src: 'p := [1, 2]\n\nq if p == []' },
  { note: 'an empty object literal is an object of any keys', src: 'o := {"a": 1}\n\nq if o == {}' },
  {
    note: 'partial object definitions with values of different types',
    src: 'o[k] := 1 if some k in ["a"]\n\no[k] := "s" if some k in ["b"]\n\nq if o.b == "s"',
  },
  {
    note: 'an object literal with a var key has any key of its type',
    src: 'q if {\n\tsome k in ["a"]\n\to := {k: 1}\n\to.b == 1\n}',
  },
  {
    note: 'a comprehension over input',
    src: 'q if {\n\txs := [x | some x in input.a]\n\tupper(xs[0]) == "A"\n}',
  },
  {
    note: 'an array pattern against a value of unknown type',
    src: 'q if {\n\t[a, b] := input.pair\n\tupper(a) == "A"\n\tb + 1 == 2\n}',
  },
  {
    note: 'a function replaced by one of the same arity taking a type the original takes',
    src: 'g(x) := upper(x)\n\nt if count([1], n) with count as g',
  },
  {
    note: 'a comprehension reading a value that `with` replaces',
    src: 'q := y if {\n\ty := [x | x := input.a[_]] with input.a as [1]\n\tupper(y[0]) == "A"\n}',
  },
  {
    note: 'an index within a fixed-length array, and any index into an array of unknown length',
    src: 'q if {\n\tx := [1, 2]\n\tx[1] == 2\n\tys := [y | some y in input.ys]\n\tys[7]\n}',
  },
  {
    note: "a set member of the set's type, absent or not",
    src: 'q if {\n\ts := {"a"}\n\ts["b"]\n}',
  },
  {
    note: 'a pattern with an unbound var whose constant parts fit',
    src: 'q if {\n\t[x, 1] = [2, 1]\n\tx + 1 == 3\n}',
  },
  {
    note: 'a ref into a multi-value rule with vars in its ref, which OPA leaves unchecked',
    src: 'g[k].m contains k if some k in ["x"]\n\nq if g[_].x.m["x"]',
  },
  {
    note: 'a pattern against a value of unknown type, under `not` too',
    src: 'q if {\n\t[x, "a"] = input.pair\n\tnot startswith(x, "b")\n}',
  },
  {
    note: "an every's key and value are not typed from its domain, as in OPA (compile_test #6790)",
    src: 'x if {\n\tevery p in [1 / 2] {\n\t\tp == true\n\t}\n}',
  },
]

describe('type errors OPA reports', () => {
  for (const c of rejected) {
    it(c.note, () => {
      expect(errorsOf(`package test\n\n${c.src}\n`)[0]).toBe(c.want)
    })
  }
})

describe('programs OPA accepts', () => {
  for (const c of accepted) {
    it(c.note, () => {
      expect(errorsOf(`package test\n\n${c.src}\n`)).toEqual([])
    })
  }
})

/**
 * OPA's checker reports nothing more about a rule, function or comprehension whose body has a type
 * error: the rule is typed `any`, the comprehension has no type. Each program below has one error;
 * with the inferred types kept, a second would follow from it.
 */
describe('errors that follow from an earlier error are not reported', () => {
  const cases: { note: string; src: string; want: string }[] = [
    {
      note: 'a rule whose body has a type error is `any`',
      src: 'p := x if {\n\tx := upper(1)\n}\n\nq if {\n\tp + 1 == 2\n}',
      want: 'test.rego:4: rego_type_error: upper: invalid argument(s)\n\thave: (number, ???)\n\twant: (x: string, y: string)',
    },
    {
      note: 'a function whose body has a type error is `any`',
      src: 'f(x) := y if {\n\ty := upper(1)\n}\n\nq if {\n\tf("a") + 1 == 2\n}',
      want: 'test.rego:4: rego_type_error: upper: invalid argument(s)\n\thave: (number, ???)\n\twant: (x: string, y: string)',
    },
    {
      note: 'a comprehension whose body has a type error has no type',
      src: 'q if {\n\txs := [y | y := upper(1)]\n\tupper(xs) == "A"\n}',
      want: 'test.rego:4: rego_type_error: upper: invalid argument(s)\n\thave: (number, ???)\n\twant: (x: string, y: string)',
    },
  ]
  for (const c of cases) {
    it(c.note, () => {
      expect(errorsOf(`package test\n\n${c.src}\n`)).toEqual([c.want])
    })
  }

  it('a rule without errors keeps its type, so its misuse is still reported', () => {
    const errors = errorsOf('package test\n\np := x if {\n\tx := upper("a")\n}\n\nq if {\n\tp + 1 == 2\n}\n')
    expect(errors).toHaveLength(1)
    expect(errors[0]).toContain('plus: invalid argument(s)\n\thave: (string, number, ???)')
  })
})
