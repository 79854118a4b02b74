/**
 * re2js, loaded on first use. It is one 260 KB module whose load costs ~30 ms of every cold start
 * (a third of `regent test`'s gap to `regent version`), while most policies and most test runs
 * never compile a regular expression. `createRequire` keeps the load synchronous for built-ins.
 * Every caller goes through here, so the whole program shares one copy of the library.
 */
import { createRequire } from 'node:module'
import type { RE2JS } from 're2js'

const require = createRequire(import.meta.url)
let loaded: typeof RE2JS | undefined

/** The RE2JS class (Go's regexp semantics), loaded once per thread. */
export function re2(): typeof RE2JS {
  loaded ??= (require('re2js') as typeof import('re2js')).RE2JS
  return loaded
}
