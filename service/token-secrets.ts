/**
 * Token secrets: random for API tokens, derived for agent tokens, and only ever stored as a
 * sha256 hash. Agent token secrets are an HMAC of the token id and generation under a key
 * kept in the database, so the service can hand a system's token out again in its generated
 * agent configs (as the upstream service does) without storing the secret itself.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/** Roles a token can hold on the workspace in this version. */
export const WORKSPACE_ADMINISTRATOR = 'WorkspaceAdministrator'

/** Settings key of the agent-token derivation key. */
export const AGENT_TOKEN_KEY_SETTING = 'agent_token_key'

/** A new random secret (256 bits, base64url). */
export function generateSecret(): string {
  return randomBytes(32).toString('base64url')
}

/** A new random key for deriving agent secrets. */
export function generateDerivationKey(): string {
  return randomBytes(32).toString('base64url')
}

/** The hash stored for a secret (hex sha256; secrets are high-entropy, so no slow hash is needed). */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex')
}

/** Compares two hex hashes in constant time. */
export function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex')
  const y = Buffer.from(b, 'hex')
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y)
}

/** The secret of an agent token: HMAC(key, id + generation), base64url. */
export function deriveAgentSecret(key: string, tokenId: string, generation: number): string {
  return createHmac('sha256', key).update(`agent-token\n${tokenId}\n${generation}`).digest('base64url')
}

/** The id of a system's agent token. */
export function agentTokenId(systemId: string): string {
  return `system-agent-${systemId}`
}

/** Expiry used when a token has no TTL (about ten years, as upstream). */
export const DEFAULT_TOKEN_TTL_MS = 10 * 365 * 24 * 3_600_000
