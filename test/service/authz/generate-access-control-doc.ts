/**
 * Rewrites the generated role × route table in docs/access-control.md from the code
 * (service/authz/route-table.ts and roles.ts). Run: node --import tsx test/service/authz/generate-access-control-doc.ts
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { withGeneratedTable } from '../../../service/authz/access-table.js'

const file = new URL('../../../docs/access-control.md', import.meta.url)
writeFileSync(file, withGeneratedTable(readFileSync(file, 'utf8')))
console.log('docs/access-control.md: route table regenerated')
