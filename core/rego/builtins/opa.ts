/** opa.runtime: what the process knows about itself (config, environment, version). */
import { t } from '../types/index.js'
import { isObject, ObjectValue, type Value } from '../values/index.js'
import { defineBuiltin } from './define.js'
import { BuiltinError } from './errors.js'

/** A copy of `x` (an object of objects) with `keys` removed from each member. */
function withoutMemberKeys(x: Value, keys: readonly string[], what: string): Value {
  const members = Array.isArray(x) ? x : isObject(x) ? null : undefined
  if (members === undefined) throw new BuiltinError(`illegal ${what} config type`)
  const strip = (member: Value): Value => {
    if (!isObject(member)) throw new BuiltinError('type assertion error')
    const out = new ObjectValue()
    for (const [k, v] of member.unsortedEntries()) if (!keys.includes(k as string)) out.set(k, v)
    return out
  }
  if (members) return members.map(strip)
  const out = new ObjectValue()
  for (const [k, v] of (x as ObjectValue).unsortedEntries()) out.set(k, strip(v))
  return out
}

/**
 * The runtime with its configuration's secrets left out, as OPA's activeConfig does: service
 * `credentials` and the `key` / `private_key` of each entry under `keys`.
 */
function withoutSecrets(runtime: ObjectValue): ObjectValue {
  const config = runtime.get('config')
  if (!isObject(config)) return runtime
  const purged = new ObjectValue()
  for (const [k, v] of config.unsortedEntries()) {
    if (k === 'services' && v !== null) purged.set(k, withoutMemberKeys(v, ['credentials'], 'service'))
    else if (k === 'keys' && v !== null) {
      if (Array.isArray(v)) throw new BuiltinError('illegal keys config type')
      purged.set(k, withoutMemberKeys(v, ['key', 'private_key'], 'keys'))
    } else purged.set(k, v)
  }
  const out = new ObjectValue()
  for (const [k, v] of runtime.unsortedEntries()) out.set(k, k === 'config' ? purged : v)
  return out
}

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
  impl: (ctx) => (isObject(ctx.runtime) ? withoutSecrets(ctx.runtime) : (ctx.runtime ?? new ObjectValue())),
})

/** The opa.* built-ins. */
export const OPA = [opaRuntime] as const
