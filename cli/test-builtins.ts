/**
 * The built-ins of `regent test` and `regent eval`: OPA's, plus EOPA's test built-in `rego.compile`
 * (compile/rego-compile-builtin.ts), which runs the compile endpoint's pipeline on the caller's
 * policy. Never offered where policies are served (relay, `regent run`, bundles checked against
 * capabilities): it exists to test filter policies.
 */

import { regoCompile } from '../compile/rego-compile-builtin.js'
import { DEFAULT_BUILTINS } from '../core/rego/builtins/registry.js'

export const TEST_BUILTINS = [...DEFAULT_BUILTINS, regoCompile] as const
