/** The `opa.runtime()` document of the commands that evaluate policy: run, eval and test. */
import { fromJS, type Value } from '../core/rego/values/index.js'
import { REGENT_VERSION } from './version-info.js'

let plain: Value | undefined

/**
 * What `opa.runtime()` returns, built as OPA's runtime.Term builds it: the configuration document
 * (a server's, when it has one; opa.runtime masks its secrets), the process environment, the
 * version and the build commit.
 *
 * NOTE(lib-csp): `opa eval` and `opa test` pass this document too (cmd/eval.go setupEval,
 * cmd/test.go compileAndSetupTests), so `opa.runtime().version` is defined there; with an empty
 * context it was undefined in `regent eval` and `regent test`, and so was every rule built on it.
 *
 * @example
 * createBuiltinContext({ runtime: runtimeTerm() }) // as `opa eval` evaluates
 */
export function runtimeTerm(config?: object): Value {
  if (config) return build(config)
  // The environment does not change during a command: tests share one document.
  plain ??= build(undefined)
  return plain
}

function build(config: object | undefined): Value {
  return fromJS({
    ...(config ? { config } : {}),
    env: { ...process.env },
    version: REGENT_VERSION,
    commit: '',
  })
}
