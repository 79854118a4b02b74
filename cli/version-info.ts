import { readFileSync } from 'node:fs'

// package.json sits two levels up both from cli/ (source) and from dist/cli/ (image): walk up.
function readVersion(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as {
        name?: string
        version?: string
      }
      if (pkg.name === 'regent' && pkg.version) return pkg.version
    } catch {
      // try the next candidate
    }
  }
  return '0.0.0-unknown'
}

/** regent's version from package.json. */
export const REGENT_VERSION = readVersion()
