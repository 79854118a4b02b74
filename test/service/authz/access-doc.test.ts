import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { withGeneratedTable } from '../../../service/authz/access-table.js'
import { ROUTE_TABLE } from '../../../service/authz/route-table.js'

describe('docs/access-control.md', () => {
  it('carries the route × role table generated from the code', () => {
    const doc = readFileSync(new URL('../../../docs/access-control.md', import.meta.url), 'utf8')
    // If this fails: node --import tsx test/service/authz/generate-access-control-doc.ts
    expect(doc).toBe(withGeneratedTable(doc))
    for (const row of ROUTE_TABLE) expect(doc).toContain(`| ${row.method} | \`${row.pattern}\` |`)
  })
})
