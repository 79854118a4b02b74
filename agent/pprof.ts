/**
 * `--pprof`: OPA serves Go's `net/http/pprof` under `/debug/pprof/`. regent is a Node process, so
 * it serves the one profile that maps: `GET /debug/pprof/profile?seconds=N` records a CPU profile
 * with the inspector (node:inspector) for N seconds (default 30, at most 300) while the server keeps
 * answering, and returns it as a `.cpuprofile` JSON document (Chrome DevTools, VS Code and
 * speedscope open it; `go tool pprof` does not). Every other `/debug/pprof/` path answers 404
 * saying so. One profile at a time.
 */
import { Session } from 'node:inspector/promises'
import { Hono } from 'hono'
import { type AppEnv, badRequest, conflict, notFound } from '../core/http/index.js'

const DEFAULT_SECONDS = 30
const MAX_SECONDS = 300

/** The `/debug/pprof/` routes. */
export function pprofRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>()
  let running = false
  app.get('/debug/pprof/profile', async (c) => {
    const seconds = profileSeconds(c.req.query('seconds'))
    if (running) throw conflict('a CPU profile is already being recorded; retry when it ends')
    running = true
    try {
      const profile = await recordCpuProfile(seconds * 1000)
      return c.body(JSON.stringify(profile), 200, {
        'Content-Type': 'application/json',
        'Content-Disposition': 'attachment; filename="profile.cpuprofile"',
      })
    } finally {
      running = false
    }
  })
  app.all('/debug/pprof/*', (c) => {
    throw notFound(
      `${c.req.path} is not served: regent serves only /debug/pprof/profile?seconds=N (a Node CPU profile as .cpuprofile JSON)`,
    )
  })
  return app
}

function profileSeconds(text: string | undefined): number {
  if (text === undefined || text === '') return DEFAULT_SECONDS
  const n = Number(text)
  if (!Number.isInteger(n) || n < 1 || n > MAX_SECONDS) {
    throw badRequest(`seconds: expected an integer from 1 to ${MAX_SECONDS}, got ${JSON.stringify(text)}`)
  }
  return n
}

/** Records the process's CPU profile for `ms` milliseconds. */
export async function recordCpuProfile(ms: number): Promise<object> {
  const session = new Session()
  session.connect()
  try {
    await session.post('Profiler.enable')
    await session.post('Profiler.start')
    await new Promise((resolve) => setTimeout(resolve, ms))
    const { profile } = await session.post('Profiler.stop')
    return profile
  } finally {
    session.disconnect()
  }
}
