/**
 * The `rel="next"` target of an RFC 8288 `Link` header, as Okta and other paginated APIs send it:
 * `<https://x/api/v1/users?after=abc&limit=200>; rel="next", <…>; rel="self"`.
 */

/** The URL of the `next` link in `header`, resolved against `base`; undefined when there is none. */
export function nextLink(header: string | null, base: string): string | undefined {
  if (!header) return undefined
  for (const match of header.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]+)*)/g)) {
    const params = match[2] ?? ''
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(params)
    const names = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/)
    if (names.includes('next')) {
      try {
        return new URL(match[1] ?? '', base).toString()
      } catch {
        return undefined
      }
    }
  }
  return undefined
}
