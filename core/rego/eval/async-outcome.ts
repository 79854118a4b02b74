/**
 * What an awaited asynchronous built-in (`http.send`, `net.lookup_ip_addr`) gave: its result, or
 * the error it failed with. The error is kept, not thrown, because OPA treats it as any built-in
 * error: with strict built-in errors off the call is undefined, the error is recorded and the
 * query goes on; only with them on does it stop the query (v1/topdown/eval.go `evalBuiltin`,
 * where every error except a `Halt` is appended to `builtinErrors`). Cancellation and the query's
 * deadline are not the built-in's failure: they still reject and stop the query, as OPA's
 * `Halt{CancelErr}` does.
 */
import type { BuiltinCallError } from '../builtins/errors.js'
import type { Cached } from './cache.js'

/** An asynchronous built-in that failed; the evaluator records or raises `error` on the next attempt. */
export class AsyncCallFailure {
  constructor(readonly error: BuiltinCallError) {}
}

/** The outcome of one asynchronous built-in call, known to the attempts after the first. */
export type AsyncOutcome = Cached | AsyncCallFailure
