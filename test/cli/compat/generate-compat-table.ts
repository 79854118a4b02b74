/**
 * Regenerates the compatibility table in docs/cli.md from the program's definitions:
 * `node --import tsx test/cli/compat/generate-compat-table.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { compatRows, renderTable, withTable } from './compat-table.js'

const DOC = fileURLToPath(new URL('../../../docs/cli.md', import.meta.url))

const doc = readFileSync(DOC, 'utf8')
writeFileSync(DOC, withTable(doc, renderTable(await compatRows())))
process.stdout.write(`updated ${DOC}\n`)
