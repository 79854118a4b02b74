/** What every regent server shares; see the files beside this one. */
export { type AppOptions, createApp } from './app.js'
export * from './body.js'
export * from './errors.js'
export { isLoopbackAddress } from './loopback.js'
export { acceptedRequestId, REQUEST_ID_HEADER, requestId } from './request-id.js'
export {
  type FastPath,
  parseAddress,
  type RunningServer,
  type ServeOptions,
  startServer,
  stopOnSignals,
} from './serve.js'
export type { AppEnv } from './types.js'
