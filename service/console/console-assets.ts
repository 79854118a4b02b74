/**
 * The console's built files (`npm run build:console` writes them to `dist/console`), read once
 * into memory when the service starts: a few hundred KB, served from one buffer each (and its
 * gzip), so a request can only ever name a file that was there at start (no path reaches the
 * disk).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

export interface ConsoleAsset {
  body: Buffer
  gzip: Buffer | undefined
  contentType: string
  etag: string
  /** Hashed file names never change content: cached for a year. */
  immutable: boolean
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
}
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json', '.txt'])

/**
 * Where the built console is: `service.console.dir` when set, else `dist/console` beside this
 * module whether it runs from source (`service/console/`) or from `dist/service/console/`.
 */
export function defaultConsoleDir(): string | undefined {
  const candidates = [
    fileURLToPath(new URL('../../dist/console', import.meta.url)),
    fileURLToPath(new URL('../../console', import.meta.url)),
  ]
  // The source folder `console/` also holds an index.html (the unbuilt one): a build has `assets/`.
  return candidates.find((dir) => existsSync(join(dir, 'index.html')) && existsSync(join(dir, 'assets')))
}

/** Every file of the folder, by its URL path below `/console/` (`index.html`, `assets/x.js`). */
export function loadConsoleAssets(dir: string): Map<string, ConsoleAsset> {
  const assets = new Map<string, ConsoleAsset>()
  if (!existsSync(dir)) return assets
  const visit = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name)
      const stat = statSync(path)
      if (stat.isDirectory()) {
        visit(path)
        continue
      }
      const urlPath = relative(dir, path).split(sep).join('/')
      const ext = name.slice(name.lastIndexOf('.'))
      const body = readFileSync(path)
      assets.set(urlPath, {
        body,
        gzip: COMPRESSIBLE.has(ext) && body.length > 512 ? gzipSync(body, { level: 9 }) : undefined,
        contentType: TYPES[ext] ?? 'application/octet-stream',
        etag: `"${stat.size.toString(16)}-${Math.trunc(stat.mtimeMs).toString(16)}"`,
        immutable: urlPath.startsWith('assets/'),
      })
    }
  }
  visit(dir)
  return assets
}
