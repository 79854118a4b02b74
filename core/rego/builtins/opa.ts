/** opa.runtime: what the process knows about itself (config, environment, version). */
import { t } from '../types/index.js'
import { ObjectValue } from '../values/index.js'
import { defineBuiltin } from './define.js'

export const opaRuntime = defineBuiltin({
  name: 'opa.runtime',
  category: 'opa',
  description: 'Returns an object that describes the runtime environment where OPA is deployed.',
  args: [],
  result: t.named(
    'output',
    t.object(t.string, t.any),
    'includes a `config` key if OPA was started with a configuration file; an `env` key containing the environment variables that the OPA process was started with; includes `version` and `commit` keys containing the version and build commit of OPA.',
  ),
  nondeterministic: true,
  impl: (ctx) => ctx.runtime ?? new ObjectValue(),
})

/** The opa.* built-ins. */
export const OPA = [opaRuntime] as const
