/**
 * Reads every module of OPA's compliance cases in ../shared/conformance/rego (never copied into the
 * repo). Shared by the parser and formatter tests.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const CONFORMANCE_DIR = fileURLToPath(
  new URL('../../../../../shared/conformance/rego/', import.meta.url),
)

export interface ConformanceModule {
  file: string
  note: string
  text: string
  wantParseError: boolean
}

/** All modules of all cases, with whether the case expects a parse error. */
export function conformanceModules(): ConformanceModule[] {
  if (!existsSync(CONFORMANCE_DIR)) return []
  const out: ConformanceModule[] = []
  for (const name of readdirSync(CONFORMANCE_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const doc = JSON.parse(readFileSync(`${CONFORMANCE_DIR}${name}`, 'utf8')) as {
      cases: Array<{ note: string; modules?: string[]; want_error_code?: string }>
    }
    for (const c of doc.cases) {
      for (const [i, text] of (c.modules ?? []).entries()) {
        out.push({
          file: `${name}#${c.note}#${i}`,
          note: c.note,
          text,
          wantParseError: c.want_error_code === 'rego_parse_error',
        })
      }
    }
  }
  return out
}
