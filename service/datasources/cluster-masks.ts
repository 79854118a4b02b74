/**
 * `masks` of `cluster/resources`: property paths stripped from every resource of a group before
 * it is stored (annotations holding a whole last-applied configuration, status blocks, anything a
 * policy must not see). A path is relative to the resource; its steps are separated by `.` or
 * `/`; a step in single quotes is taken whole (`metadata.annotations.'kubectl.kubernetes.io/x'`);
 * `*` stands for every key. A step that meets an array applies to each of its elements, so
 * `spec.containers.env` strips the environment of every container. A path that is just `*`
 * leaves the whole group out.
 */

/** The steps of a mask path. @throws Error naming the problem (an unclosed quote, an empty step). */
export function parseMaskPath(path: string): string[] {
  const steps: string[] = []
  let i = 0
  while (i <= path.length) {
    let step: string
    if (path[i] === "'") {
      const end = path.indexOf("'", i + 1)
      if (end < 0) throw new Error(`unclosed quote in ${JSON.stringify(path)}`)
      step = path.slice(i + 1, end)
      i = end + 1
      if (i < path.length && path[i] !== '.' && path[i] !== '/')
        throw new Error(`expected . or / after the quoted step in ${JSON.stringify(path)}`)
    } else {
      const rest = path.slice(i)
      const end = rest.search(/[./]/)
      step = end < 0 ? rest : rest.slice(0, end)
      i += step.length
      if (step === '') throw new Error(`empty step in ${JSON.stringify(path)}`)
    }
    steps.push(step)
    i++ // the separator
  }
  return steps
}

/** True when the paths leave the whole group out. */
export function masksWholeGroup(paths: readonly string[]): boolean {
  return paths.some((p) => p.trim() === '*')
}

/** Removes the property at `steps` from `node` (in place). */
export function stripPath(node: unknown, steps: readonly string[], at = 0): void {
  if (Array.isArray(node)) {
    for (const element of node) stripPath(element, steps, at)
    return
  }
  if (typeof node !== 'object' || node === null || at >= steps.length) return
  const record = node as Record<string, unknown>
  const step = steps[at]!
  const keys = step === '*' ? Object.keys(record) : Object.hasOwn(record, step) ? [step] : []
  for (const key of keys) {
    if (at === steps.length - 1) delete record[key]
    else stripPath(record[key], steps, at + 1)
  }
}
