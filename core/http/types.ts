import type { Logger } from 'pino'

/** Variables every regent Hono app carries per request. */
export type AppEnv = {
  Variables: {
    requestId: string
    log: Logger
  }
}
