/**
 * The source line an error points at, with a marker under its column: the marker's indent copies
 * the line's tabs so it lands under the right character however tabs are drawn.
 */
export interface PointedLine {
  row: number
  text: string
  marker: string
}

export function pointAt(source: string | undefined, row?: number, col?: number): PointedLine | undefined {
  if (source === undefined || row === undefined || row < 1) return undefined
  const text = source.split(/\r?\n/)[row - 1]
  if (text === undefined) return undefined
  const at = Math.max(1, Math.min(col ?? 1, text.length + 1))
  const marker = `${text.slice(0, at - 1).replace(/[^\t]/g, ' ')}^`
  return { row, text, marker }
}
