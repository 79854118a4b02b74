/**
 * js-yaml, loaded on first use. Rego parsing reads METADATA comments as YAML, so every program
 * that parses Rego imports core/yaml.ts, but most never meet a YAML document; loading the library
 * on the first read keeps it off the cold start of `regent test` and friends. `createRequire` keeps
 * the load synchronous, and every caller goes through here so that one copy's `YAMLException`
 * and `Type` are the ones compared and extended.
 */
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
let loaded: typeof import('js-yaml') | undefined

/** The js-yaml module, loaded once per thread. */
export function yamlLibrary(): typeof import('js-yaml') {
  loaded ??= require('js-yaml') as typeof import('js-yaml')
  return loaded
}
