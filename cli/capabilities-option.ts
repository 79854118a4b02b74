/**
 * `--capabilities <version-or-file>` of `regent build`, `check`, `eval` and `test`, as OPA reads it: a
 * capabilities JSON file (what `regent capabilities --current` prints, or OPA's own files) or a
 * version that `regent capabilities` lists (regent's own, or a release of the reference engine whose
 * built-in set cli/opa-release-capabilities.ts knows). The built-ins the file lists are the only ones the
 * compiler knows, so a policy that calls any other fails with OPA's
 * `rego_type_error: undefined function NAME`; a function the file declares that regent lacks
 * (another tool's, such as `ec.oci.blob`) compiles and fails only when called, so tests can mock it
 * with `with`; `allow_net` limits the hosts `http.send` may reach.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { declaredOnlyBuiltin } from '../core/rego/builtins/declared-only.js'
import type { Builtin } from '../core/rego/builtins/define.js'
import { DEFAULT_BUILTINS } from '../core/rego/builtins/registry.js'
import { LANGUAGE_BUILTINS } from '../core/rego/compiler/builtin-info.js'
import { knownReleases, releaseBuiltins } from './opa-release-capabilities.js'
import { REGENT_VERSION } from './version-info.js'

/** What a `--capabilities` value allows. */
export interface Capabilities {
  /** The built-ins the compiler and evaluator know (a subset of regent's). */
  builtins: readonly Builtin[]
  /** Hosts built-ins may reach; absent allows every host, as in OPA. */
  allowNet?: string[]
  /** The file's `future_keywords` (the parser refuses importing others); absent: regent's own. */
  futureKeywords?: string[]
  /** The file's `features` (`rego_v2_import` gates `import rego.v2`); absent: regent's own. */
  features?: string[]
}

/** A `--capabilities` value that cannot be used; the message names the flag and the value. */
export class CapabilitiesError extends Error {}

/** Names regent implements or the compiler itself handles (operators, print). */
const KNOWN = new Set([...DEFAULT_BUILTINS, ...LANGUAGE_BUILTINS].map((b) => b.name))

const VERSION = /^v?\d+\.\d+\.\d+(?:-[\w.]+)?$/

/**
 * The capabilities `value` names, or undefined without the flag (every built-in, any host).
 * @throws CapabilitiesError for a missing or malformed file and for versions regent has no
 *   capabilities for.
 * @example (await loadCapabilities('caps.json'))?.builtins.map((b) => b.name)
 */
export async function loadCapabilities(value: string | undefined): Promise<Capabilities | undefined> {
  return readCapabilities(value)
}

/** {@link loadCapabilities}, synchronously (for settings read before a server starts). */
export function readCapabilities(value: string | undefined): Capabilities | undefined {
  if (value === undefined) return undefined
  if (existsSync(value)) {
    if (!statSync(value).isFile()) throw new CapabilitiesError(`--capabilities ${value}: not a file`)
    return fromDocument(readDocument(value), value)
  }
  if (VERSION.test(value)) {
    if (value.replace(/^v/, '') === REGENT_VERSION) return { builtins: DEFAULT_BUILTINS }
    const release = releaseBuiltins(value)
    if (release) return { builtins: release }
    const releases = knownReleases()
    throw new CapabilitiesError(
      `--capabilities ${value}: no capabilities for this version (regent knows ${releases[0]} to ` +
        `${releases.at(-1)} and v${REGENT_VERSION}); give a capabilities JSON file instead`,
    )
  }
  throw new CapabilitiesError(`--capabilities ${value}: no such file, and not a version such as v1.0.0`)
}

function readDocument(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'))
  } catch (err) {
    throw new CapabilitiesError(
      `--capabilities ${path} is not a capabilities JSON file: ${(err as Error).message}`,
    )
  }
}

function fromDocument(doc: unknown, path: string): Capabilities {
  const bad = (why: string) =>
    new CapabilitiesError(`--capabilities ${path} is not a capabilities JSON file: ${why}`)
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw bad('not a JSON object')
  const {
    builtins,
    allow_net: allowNet,
    future_keywords: futureKeywords,
    features,
  } = doc as { builtins?: unknown; allow_net?: unknown; future_keywords?: unknown; features?: unknown }
  if (!Array.isArray(builtins)) throw bad('no "builtins" list')
  const names = new Set<string>()
  const declaredOnly: Builtin[] = []
  builtins.forEach((entry, i) => {
    const { name, decl } = (entry ?? {}) as { name?: unknown; decl?: unknown }
    if (typeof name !== 'string') throw bad(`builtins[${i}] has no "name"`)
    names.add(name)
    if (decl === undefined || KNOWN.has(name)) return
    try {
      declaredOnly.push(declaredOnlyBuiltin(name, decl))
    } catch (err) {
      throw bad(`builtins[${i}] (${name}) has a malformed "decl": ${(err as Error).message}`)
    }
  })
  if (allowNet !== undefined && allowNet !== null) {
    if (!Array.isArray(allowNet) || allowNet.some((h) => typeof h !== 'string'))
      throw bad('"allow_net" must be a list of host names')
  }
  // A built-in the file declares but regent lacks (another tool's custom function) compiles with
  // its declared type and fails when called, as in OPA; one without a "decl" stays unknown.
  const strings = (x: unknown): string[] => (Array.isArray(x) ? x.filter((s) => typeof s === 'string') : [])
  // OPA reads a missing list as empty: a file without `future_keywords` allows no later keyword.
  return {
    builtins: [...DEFAULT_BUILTINS.filter((b) => names.has(b.name)), ...declaredOnly],
    ...(Array.isArray(allowNet) ? { allowNet: allowNet as string[] } : {}),
    futureKeywords: strings(futureKeywords),
    features: strings(features),
  }
}
