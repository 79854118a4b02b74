/**
 * `service.identity_providers`: OIDC issuers whose bearer JWTs the service accepts besides API
 * tokens. Each names its issuer (matched against the token's `iss`), the audience the token must
 * carry, and where its signing keys are: a JWKS URL (https, or http on loopback only) or a JWKS file.
 */
import { z } from 'zod'
import { field } from '../../core/config.js'

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]'])

/** True for https URLs, and http URLs of this host (a test or a sidecar IdP). */
function secureOrLoopback(url: string): boolean {
  const parsed = new URL(url)
  return parsed.protocol === 'https:' || (parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname))
}

/**
 * Console sign-in through this provider (docs/console.md#signing-in): the authorization code
 * flow with PKCE, as a public client (no client secret anywhere). Endpoints left out are read
 * from `<issuer>/.well-known/openid-configuration` by the service.
 */
export const consoleSignInSchema = z.strictObject({
  /** The client id registered at the provider for the console (a public client). */
  client_id: z.string().min(1).max(256),
  /** The button's text: "Sign in with <display_name>"; default the provider id. */
  display_name: z.string().min(1).max(64).optional(),
  authorization_endpoint: z
    .url({ error: 'expected an http(s) URL' })
    .refine(secureOrLoopback, { error: 'expected an https URL (http only on 127.0.0.1, localhost or [::1])' })
    .optional(),
  token_endpoint: z
    .url({ error: 'expected an http(s) URL' })
    .refine(secureOrLoopback, { error: 'expected an https URL (http only on 127.0.0.1, localhost or [::1])' })
    .optional(),
  /** Scopes asked for; `openid` is always included. */
  scopes: z.array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/)).default(['openid', 'profile', 'email']),
  /** Milliseconds a discovery fetch or code exchange may take. */
  timeout_ms: field.positiveInt().default(5000),
})

/** One identity provider. */
export const identityProviderSchema = z
  .strictObject({
    /** Names the provider in principals, logs and `claim` subjects. */
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, {
      error: "expected 1-64 letters, digits, '.', '_' or '-'",
    }),
    /** Exactly the `iss` of its tokens. */
    issuer: z.string().min(1),
    /** The `aud` a token must carry (one of them, when several are listed). */
    audience: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
    /** Where its JWKS is served; use either this or jwks_file. */
    jwks_url: z
      .url({ error: 'expected an http(s) URL' })
      .refine(secureOrLoopback, {
        error: 'expected an https URL (http only on 127.0.0.1, localhost or [::1])',
      })
      .optional(),
    /** A JWKS file (re-read when a token names a key it does not hold). */
    jwks_file: z.string().min(1).optional(),
    /** The claim whose value is the user id (`sub`, or e.g. `email`). */
    user_claim: z.string().min(1).default('sub'),
    /** Seconds of clock skew allowed on exp, nbf and iat. */
    clock_tolerance_seconds: field.nonNegativeInt().default(30),
    /** Least seconds between two fetches of the JWKS for an unknown `kid`. */
    jwks_refresh_cooldown_seconds: field.nonNegativeInt().default(30),
    /**
     * Seconds after a failed JWKS fetch during which no fetch is tried: tokens whose key was
     * fetched before still verify, others are answered 503 at once.
     */
    jwks_failure_cooldown_seconds: field.nonNegativeInt().default(30),
    /** Seconds fetched keys are used before they are fetched again. */
    jwks_cache_seconds: field.positiveInt().default(600),
    /** Milliseconds a JWKS fetch may take. */
    jwks_timeout_ms: field.positiveInt().default(5000),
    /** Offer "Sign in with …" in the console (optional). */
    console: consoleSignInSchema.optional(),
  })
  .refine((p) => (p.jwks_url === undefined) !== (p.jwks_file === undefined), {
    error: 'set exactly one of jwks_url and jwks_file',
  })

/** The providers, with ids and issuers each used once. */
export const identityProvidersSchema = z
  .array(identityProviderSchema)
  .default([])
  .superRefine((providers, ctx) => {
    const ids = new Set<string>()
    const issuers = new Set<string>()
    providers.forEach((p, i) => {
      if (ids.has(p.id))
        ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `duplicate provider id "${p.id}"` })
      if (issuers.has(p.issuer)) {
        ctx.addIssue({
          code: 'custom',
          path: [i, 'issuer'],
          message: `another provider has issuer "${p.issuer}"`,
        })
      }
      ids.add(p.id)
      issuers.add(p.issuer)
    })
  })

/** One validated identity provider. */
export type IdentityProviderConfig = z.output<typeof identityProviderSchema>
