import type { Logger } from 'pino'

/** Variables every regent Hono app carries per request. */
export type AppEnv = {
  Variables: {
    requestId: string
    log: Logger
    /** The request body as read by `readBody` (inflated), once a route has read it. */
    requestBody?: Buffer
  }
}
