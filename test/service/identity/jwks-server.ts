/**
 * A JWKS endpoint on 127.0.0.1 for identity tests, with keys the test signs tokens with. The
 * served key set can be changed (a provider rotating its keys) and fetches are counted.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose'

export interface SigningKey {
  kid: string
  alg: string
  privateKey: CryptoKey
  publicJwk: JWK
}

/** A new key pair for `alg`, its public half as a JWK named `kid`. */
export async function signingKey(kid: string, alg = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true })
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } }
}

/** A JWT signed with `key`; `claims` override the defaults (iss, aud, sub, an hour of validity). */
export function signToken(
  key: SigningKey,
  claims: JWTPayload,
  header: Record<string, unknown> = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({ iat: now, exp: now + 3600, ...claims })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, ...header })
    .sign(key.privateKey)
}

export interface JwksServer {
  url: string
  /** How many times the key set was fetched. */
  fetches: number
  /** Serves these keys from now on (and ends a failure). */
  serve(keys: SigningKey[]): void
  /** Answers every fetch with `status` from now on (the provider is down) until `serve`. */
  fail(status: number): void
  close(): Promise<void>
}

/** Starts a JWKS server on 127.0.0.1 serving `keys`. */
export async function startJwksServer(keys: SigningKey[]): Promise<JwksServer> {
  let served = keys
  let failure: number | undefined
  const state = { fetches: 0 }
  const server: Server = createServer((req, res) => {
    state.fetches++
    if (failure !== undefined) {
      res.writeHead(failure).end()
      return
    }
    if (req.url !== '/jwks.json') {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { 'Content-Type': 'application/json' })
    res.end(JSON.stringify({ keys: served.map((k) => k.publicJwk) }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/jwks.json`,
    get fetches() {
      return state.fetches
    },
    serve(next) {
      served = next
      failure = undefined
    },
    fail(status) {
      failure = status
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
