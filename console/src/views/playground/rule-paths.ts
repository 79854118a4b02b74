/**
 * Rule paths a module defines (`package filters` + `include if …` → `filters/include`), to offer
 * in the rule path field. A line scan, not a parser: the service compiles the real thing, this only
 * suggests; rules named like filters (`include`, `filter…`, `allow`) come first.
 */
const PACKAGE = /^package\s+([\w.]+)/m
const RULE_HEAD = /^([A-Za-z_]\w*)(?:\s*\[[^\]]*\])?\s*(?:if\b|:=|=|contains\b|\{)/gm
const KEYWORDS = new Set(['package', 'import', 'default', 'not', 'some', 'every', 'else'])

export function rulePaths(modules: Record<string, string>): string[] {
  const found = new Set<string>()
  for (const source of Object.values(modules)) {
    const pkg = PACKAGE.exec(source)?.[1]
    if (!pkg) continue
    const base = pkg.split('.').join('/')
    for (const match of source.matchAll(RULE_HEAD)) {
      const name = match[1] ?? ''
      if (!KEYWORDS.has(name)) found.add(`${base}/${name}`)
    }
  }
  return [...found].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
}

function rank(path: string): number {
  const rule = path.slice(path.lastIndexOf('/') + 1)
  if (rule === 'include' || rule.startsWith('filter')) return 0
  if (rule === 'allow') return 1
  return 2
}
