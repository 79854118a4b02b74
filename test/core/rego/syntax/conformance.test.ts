import { describe, expect, it } from 'vitest'
import { parseModuleWithErrors } from '../../../../core/rego/syntax/module-parser.js'
import { CONFORMANCE_DIR, conformanceModules } from './conformance-modules.js'

const modules = conformanceModules()
if (modules.length === 0) console.warn(`conformance modules not found under ${CONFORMANCE_DIR}; skipping`)

describe.skipIf(modules.length === 0)('parsing OPA conformance modules', () => {
  it('parses every module that should parse and rejects those that should not (100%)', () => {
    const failures: string[] = []
    let parsed = 0
    for (const m of modules) {
      const { module, errors } = parseModuleWithErrors(m.text, { file: m.file })
      if (m.wantParseError) {
        if (module) failures.push(`${m.file}: parsed but the case wants rego_parse_error`)
        continue
      }
      if (module) parsed++
      else failures.push(`${m.file}: ${errors.map(String).join('; ')}`)
    }
    console.log(`conformance: ${parsed}/${modules.length} modules parse`)
    expect(failures).toEqual([])
    expect(parsed).toBeGreaterThan(1900)
  })
})
