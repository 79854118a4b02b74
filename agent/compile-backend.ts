/**
 * The compile endpoint (`/v1/compile`) over the server's own policies and data: compile/'s
 * `EngineBackend`, given the state's modules and data again after every accepted change.
 */
import { EngineBackend, type EngineBackendOptions } from '../compile/backend.js'
import type { Value } from '../core/rego/values/index.js'
import type { ServerState } from './state.js'

/**
 * A backend that follows `state` (policy PUT/DELETE and data writes); `evaluation` is the
 * server's budget and allow_net, which compile requests follow as queries do.
 */
export function stateCompileBackend(
  state: ServerState,
  runtime: Value,
  evaluation: Pick<EngineBackendOptions, 'budget' | 'allowNet'> = {},
): EngineBackend {
  const policySet = () => ({ modules: state.modulesById(), data: state.data })
  const backend = new EngineBackend(policySet(), { builtins: () => ({ runtime }), ...evaluation })
  state.onChange(() => backend.update(policySet()))
  return backend
}
