/**
 * Mocked built-ins for one evaluation (runs on the evaluation worker): each mocked built-in is
 * replaced by one that answers a call whose identifying fields equal a data entry's with that
 * entry's `result`, does nothing (answers `{}`) when the data list is empty, and otherwise records
 * the call as unmocked and makes it for real, unless the request is a sandbox or the call may not
 * go out (allow_net, allowFiles, no client in this build): then the query stops with an error
 * naming the call. The report lists, per mocked built-in, the distinct calls
 * that were mocked and unmocked, with the key the request used.
 */
import type { AsyncBuiltin, Builtin } from '../../core/rego/builtins/define.js'
import { CallRefusedError } from '../../core/rego/builtins/errors.js'
import { EvalError as RegoEvalError } from '../../core/rego/eval/errors.js'
import { fromJS, isObject, ObjectValue, toJS, type Value } from '../../core/rego/values/index.js'
import type { MockedBuiltin } from './mock-request.js'
import { callIdentity, canonical, type MockShape, mockShape, reportElement } from './mock-table.js'

/** BuiltinMocksResponse: per mock key, the calls answered by a mock and those that were not. */
export type MocksReport = Record<string, { mocked?: unknown[]; unmocked?: unknown[] }>

interface Calls {
  key: string
  shape: MockShape
  mocked: Map<string, unknown>
  unmocked: Map<string, unknown>
}

/** Replaces mocked built-ins and reports their calls (see the file comment). */
export class BuiltinMocks {
  readonly #calls: Calls[] = []

  constructor(
    private readonly mocks: readonly MockedBuiltin[],
    private readonly sandbox: boolean,
  ) {}

  /** `builtins` with the mocked ones replaced. */
  wrap(builtins: readonly Builtin[]): Builtin[] {
    const byName = new Map(this.mocks.map((m) => [m.builtin, m]))
    return builtins.map((b) => {
      const mock = byName.get(b.name)
      return mock && b.kind === 'async' ? this.#mocked(b, mock) : b
    })
  }

  /** The report, in the order the request listed its mocks. */
  report(): MocksReport {
    const out: MocksReport = {}
    for (const mock of this.mocks) {
      const calls = this.#calls.find((c) => c.key === mock.key)
      const entry: { mocked?: unknown[]; unmocked?: unknown[] } = {}
      if (calls && calls.mocked.size > 0) entry.mocked = [...calls.mocked.values()]
      if (calls && calls.unmocked.size > 0) entry.unmocked = [...calls.unmocked.values()]
      out[mock.key] = entry
    }
    return out
  }

  #mocked(real: AsyncBuiltin, mock: MockedBuiltin): AsyncBuiltin {
    const shape = mockShape(mock.builtin)!
    const calls: Calls = { key: mock.key, shape, mocked: new Map(), unmocked: new Map() }
    this.#calls.push(calls)
    const answers = new Map<string, Value>()
    for (const entry of mock.data) {
      const key = canonical(callIdentity(shape, entry))
      // The first entry for a call wins, as a reader of the list would expect.
      if (!answers.has(key)) answers.set(key, fromJS(entry.result))
    }
    const noop = mock.data.length === 0
    const sandbox = this.sandbox
    const impl: AsyncBuiltin['impl'] = async (ctx, args, location) => {
      const [request] = args
      // Not a request object: the real built-in reports the type error.
      if (!isObject(request)) return real.impl(ctx, args, location)
      const identity = callIdentity(shape, toJS(request) as Record<string, unknown>)
      const key = canonical(identity)
      const answer = noop ? new ObjectValue() : answers.get(key)
      if (answer !== undefined) {
        calls.mocked.set(key, reportElement(shape, identity))
        return answer
      }
      calls.unmocked.set(key, reportElement(shape, identity))
      const unmatched = `${real.name}: call ${canonical(reportElement(shape, identity))} matches no entry of mocks.${mock.key}`
      if (sandbox)
        throw new RegoEvalError(
          'eval_builtin_error',
          `${unmatched}, and a sandbox request makes no outside calls`,
          location,
        )
      try {
        return await real.impl(ctx, args, location)
      } catch (err) {
        // NOTE(service): a call the mocks were meant to cover and that may not go out is the
        // user's to fix (a mock entry, or service.evaluation.allow_net): stop with that, rather
        // than letting the call turn undefined as a failing built-in does.
        if (err instanceof CallRefusedError)
          throw new RegoEvalError(
            'eval_builtin_error',
            `${unmatched}, and cannot be made: ${err.message}`,
            location,
          )
        throw err
      }
    }
    return { ...real, impl }
  }
}
