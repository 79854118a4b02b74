/**
 * Light and dark themes: the system's preference unless the reader picked one, kept in
 * localStorage (a display preference, nothing secret).
 */
export type Theme = 'light' | 'dark' | 'system'
const KEY = 'regent.console.theme'

export function storedTheme(): Theme {
  try {
    const t = localStorage.getItem(KEY)
    return t === 'light' || t === 'dark' ? t : 'system'
  } catch {
    return 'system'
  }
}

export function applyTheme(theme: Theme): void {
  const root = document.documentElement
  if (theme === 'system') root.removeAttribute('data-theme')
  else root.setAttribute('data-theme', theme)
  try {
    if (theme === 'system') localStorage.removeItem(KEY)
    else localStorage.setItem(KEY, theme)
  } catch {
    // A preference that is not kept is only a preference.
  }
}

export function nextTheme(theme: Theme): Theme {
  return theme === 'system' ? 'dark' : theme === 'dark' ? 'light' : 'system'
}
