/**
 * The role × route table of docs/access-control.md, generated from the route table and the
 * built-in roles (`node --import tsx test/service/authz/generate-access-control-doc.ts` rewrites the doc's
 * generated part; a test checks the checked-in doc equals this text).
 */
import { AGENT_ACTIONS, BUILTIN_ROLES, type BuiltinRole, OPEN_ACTIONS } from './roles.js'
import { ROUTE_TABLE, type RouteRow } from './route-table.js'

export const TABLE_BEGIN =
  '<!-- BEGIN GENERATED: route table (test/service/authz/generate-access-control-doc.ts) -->'
export const TABLE_END = '<!-- END GENERATED: route table -->'

/** True when `role` includes `action` (on a resource its binding covers). */
export function roleAllows(role: BuiltinRole, action: string): boolean {
  return (
    (OPEN_ACTIONS as readonly string[]).includes(action) ||
    role.actions.includes('*') ||
    role.actions.includes(action)
  )
}

/**
 * What a role bound on the workspace (workspace roles) or on one system (system roles) may do
 * on a row: `yes`, `no`, or for system roles `own` (only on the system it is bound to).
 */
export function tableCell(role: BuiltinRole, row: RouteRow): 'yes' | 'own' | 'no' {
  // Open to every caller: the route checks its shared secret instead of a role.
  if (row.authentication !== undefined) return 'yes'
  if (!roleAllows(role, row.action)) return 'no'
  if (role.resource_kind === 'workspace') return 'yes'
  if ((OPEN_ACTIONS as readonly string[]).includes(row.action)) return 'yes'
  const own =
    role.resource_kind === 'library'
      ? row.resource === 'library' || row.resource === 'binding'
      : row.resource === 'path' || row.resource === 'query' || row.resource === 'binding'
  return own ? 'own' : 'no'
}

/** What a system's agent token may do on a row (its own system only). */
export function agentCell(row: RouteRow): 'own' | 'yes' | 'no' {
  if (row.authentication !== undefined) return 'yes'
  if ((OPEN_ACTIONS as readonly string[]).includes(row.action)) return 'yes'
  if (!(AGENT_ACTIONS as readonly string[]).includes(row.action)) return 'no'
  return row.resource === 'workspace' ? 'no' : 'own'
}

const SYMBOL = { yes: '✓', own: 'own', no: '' }

/** The markdown table, one line per route row. */
export function accessTableMarkdown(): string {
  const header = ['Method', 'Path', 'Action', 'Resource', ...BUILTIN_ROLES.map((r) => r.id), 'agent token']
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`]
  for (const row of ROUTE_TABLE) {
    if (row.authentication !== undefined) {
      const cells = [row.method, `\`${row.pattern}\``, `\`${row.action}\``, row.resource]
      const label = row.authentication === 'none' ? 'open (no token)' : 'shared secret'
      const open = [...BUILTIN_ROLES, 'agent'].map(() => label)
      lines.push(`| ${[...cells, ...open].join(' | ')} |`)
      continue
    }
    const cells = [
      row.method,
      `\`${row.pattern}\``,
      `\`${row.action}\`${row.narrower ? ` (or \`${row.narrower}\`)` : ''}`,
      row.resource,
      ...BUILTIN_ROLES.map((role) => {
        const main = tableCell(role, row)
        if (main === 'no' && row.narrower && roleAllows(role, row.narrower)) return 'refresh only'
        return SYMBOL[main]
      }),
      SYMBOL[agentCell(row)],
    ]
    lines.push(`| ${cells.join(' | ')} |`)
  }
  return `${lines.join('\n')}\n`
}

/** `doc` with its generated part replaced by the current table. */
export function withGeneratedTable(doc: string): string {
  const begin = doc.indexOf(TABLE_BEGIN)
  const end = doc.indexOf(TABLE_END)
  if (begin === -1 || end < begin) throw new Error('docs/access-control.md lacks the generated-table markers')
  return `${doc.slice(0, begin + TABLE_BEGIN.length)}\n${accessTableMarkdown()}${doc.slice(end)}`
}
