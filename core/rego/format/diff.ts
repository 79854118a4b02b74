/**
 * A unified line diff (Myers' O(ND) algorithm), used by `regent fmt -d` to show what formatting
 * would change. Small and dependency-free; the inputs are single source files.
 */

type Op = [' ' | '-' | '+', string]

/** The edit script turning `a` into `b`, line by line. */
function editScript(a: string[], b: string[]): Op[] {
  const n = a.length
  const m = b.length
  const max = n + m
  const v = new Map<number, number>([[1, 0]])
  const trace: Array<Map<number, number>> = []
  outer: for (let d = 0; d <= max; d++) {
    trace.push(new Map(v))
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && (v.get(k - 1) ?? -1) < (v.get(k + 1) ?? -1))
      let x = down ? (v.get(k + 1) ?? 0) : (v.get(k - 1) ?? 0) + 1
      let y = x - k
      while (x < n && y < m && a[x] === b[y]) {
        x++
        y++
      }
      v.set(k, x)
      if (x >= n && y >= m) break outer
    }
  }
  const ops: Op[] = []
  let x = n
  let y = m
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d] as Map<number, number>
    const k = x - y
    const down = k === -d || (k !== d && (vd.get(k - 1) ?? -1) < (vd.get(k + 1) ?? -1))
    const prevK = down ? k + 1 : k - 1
    const prevX = vd.get(prevK) ?? 0
    const prevY = prevX - prevK
    while (x > prevX && y > prevY) {
      x--
      y--
      ops.push([' ', a[x] as string])
    }
    if (d > 0) {
      if (down) ops.push(['+', b[--y] as string])
      else ops.push(['-', a[--x] as string])
    }
  }
  return ops.reverse()
}

/**
 * A unified diff of two texts with `context` lines around each change; empty when they are equal.
 *
 * @example
 * unifiedDiff('a.rego', 'p = 1\n', 'p := 1\n')
 */
export function unifiedDiff(file: string, before: string, after: string, context = 3): string {
  if (before === after) return ''
  const a = before.split('\n')
  const b = after.split('\n')
  const ops = editScript(a, b)
  const out = [`diff a/${file} b/${file}`, `--- a/${file}`, `+++ b/${file}`]
  let i = 0
  let lineA = 1
  let lineB = 1
  while (i < ops.length) {
    while (i < ops.length && ops[i]?.[0] === ' ') {
      i++
      lineA++
      lineB++
    }
    if (i >= ops.length) break
    const start = Math.max(0, i - context)
    let end = i
    let quiet = 0
    while (end < ops.length && quiet <= 2 * context) {
      quiet = ops[end]?.[0] === ' ' ? quiet + 1 : 0
      end++
    }
    end = Math.min(ops.length, end - Math.max(0, quiet - context))
    const lead = i - start
    const hunk = ops.slice(start, end)
    const countA = hunk.filter((o) => o[0] !== '+').length
    const countB = hunk.filter((o) => o[0] !== '-').length
    out.push(`@@ -${lineA - lead},${countA} +${lineB - lead},${countB} @@`)
    for (const [op, line] of hunk) out.push(`${op}${line}`)
    for (const [op] of ops.slice(i, end)) {
      if (op !== '+') lineA++
      if (op !== '-') lineB++
    }
    i = end
  }
  return `${out.join('\n')}\n`
}
