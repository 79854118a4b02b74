/** A JSON text field's value, or why it does not parse (shown under the field). */
export type Parsed = { ok: true; value: unknown } | { ok: false; message: string }

export function parseJsonField(text: string, what: string, emptyMeans?: unknown): Parsed {
  if (text.trim() === '') {
    return emptyMeans === undefined
      ? { ok: false, message: `${what} is empty: write a JSON value` }
      : { ok: true, value: emptyMeans }
  }
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (err) {
    return { ok: false, message: `${what} is not valid JSON: ${(err as Error).message}` }
  }
}

/** `input.tickets, input.users` → the unknowns list; empty → none (the policy's own metadata). */
export function parseUnknowns(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '')
}
