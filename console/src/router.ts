/**
 * Hash routing (`#/systems/abc`): the service serves one `index.html` and needs no fallback
 * route, and a view's address can be bookmarked and shared (it holds ids, never a token).
 */
import { useEffect, useState } from 'preact/hooks'

export interface Location {
  /** Path segments after `#/`, decoded. */
  segments: string[]
  /** Query parameters after `?` in the hash. */
  params: URLSearchParams
}

export function parseHash(hash: string): Location {
  const text = hash.replace(/^#\/?/, '')
  const [path = '', query = ''] = text.split('?', 2)
  const segments = path
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      try {
        return decodeURIComponent(s)
      } catch {
        return s
      }
    })
  return { segments, params: new URLSearchParams(query) }
}

/** The href of a console address: `href('systems', id)` → `#/systems/<id>`. */
export function href(...segments: string[]): string {
  return `#/${segments.map(encodeURIComponent).join('/')}`
}

/**
 * Sets the address without adding a history entry (filters typed into a search box), and tells
 * `useLocation` (replaceState fires no `hashchange` of its own).
 */
export function replaceParams(params: URLSearchParams): void {
  const { segments } = parseHash(location.hash)
  const query = params.toString()
  const next = `#/${segments.map(encodeURIComponent).join('/')}${query ? `?${query}` : ''}`
  history.replaceState(null, '', next)
  window.dispatchEvent(new HashChangeEvent('hashchange'))
}

/** The current location, updated on every hash change. */
export function useLocation(): Location {
  const [loc, setLoc] = useState(() => parseHash(location.hash))
  useEffect(() => {
    const update = () => setLoc(parseHash(location.hash))
    window.addEventListener('hashchange', update)
    return () => window.removeEventListener('hashchange', update)
  }, [])
  return loc
}
