/**
 * `/console/`: the web console (docs/console.md). Static files only, open without a token: they
 * hold no data; everything the console shows comes from the management API with the signed-in
 * subject's token. Sent with a strict Content-Security-Policy (scripts, styles and API calls from
 * this origin only, no framing), `nosniff` and no referrer; hashed assets are cached for a year,
 * `index.html` is revalidated on every load.
 */

import type { Context } from 'hono'
import { Hono } from 'hono'
import { type ConsoleAsset, defaultConsoleDir, loadConsoleAssets } from '../console/console-assets.js'
import type { ServiceEnv } from '../types.js'

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const SECURITY_HEADERS = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
}

function send(c: Context<ServiceEnv>, asset: ConsoleAsset): Response {
  const headers: Record<string, string> = {
    ...SECURITY_HEADERS,
    'Content-Type': asset.contentType,
    ETag: asset.etag,
    Vary: 'Accept-Encoding',
    'Cache-Control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
  }
  if (c.req.header('If-None-Match') === asset.etag) return new Response(null, { status: 304, headers })
  const gzip = asset.gzip !== undefined && /\bgzip\b/.test(c.req.header('Accept-Encoding') ?? '')
  if (gzip) headers['Content-Encoding'] = 'gzip'
  const body = gzip ? asset.gzip! : asset.body
  headers['Content-Length'] = String(body.length)
  return new Response(c.req.method === 'HEAD' ? null : new Uint8Array(body), { status: 200, headers })
}

/** Routes of `/console`. `dir` is the built console; without one, `/console/` says how to build it. */
export function consoleRoutes(dir: string | undefined = defaultConsoleDir()): Hono<ServiceEnv> {
  const app = new Hono<ServiceEnv>()
  const assets = dir === undefined ? new Map<string, ConsoleAsset>() : loadConsoleAssets(dir)
  const index = assets.get('index.html')

  const notBuilt = (c: Context<ServiceEnv>) =>
    c.text(
      'The console is not built: run `npm run build:console` (or `npm run build`) and restart the service.\n',
      404,
      SECURITY_HEADERS,
    )

  app.get('/console', (c) => c.redirect('/console/', 308))
  // Where `regent login` sends the browser: the console's page that hands the command line a token.
  app.get('/cli-sign-in', (c) => (index === undefined ? notBuilt(c) : send(c, index)))
  app.get('/console/*', (c) => {
    const name = c.req.path.slice('/console/'.length)
    if (index === undefined) return notBuilt(c)
    const asset = name === '' ? index : assets.get(name)
    if (asset) return send(c, asset)
    // Views live in the hash (`#/systems`), so any other path is a missing file, not a view.
    return c.text('not found\n', 404, SECURITY_HEADERS)
  })
  return app
}
