/**
 * First start: an empty database gets an administrator token, from `REGENT_ADMIN_TOKEN` (or
 * the `adminToken` option) when given, else a generated one that the caller prints once. Also
 * the key agent-token secrets are derived with, created once and shared by every replica.
 */
import type { ServiceStore } from '../store/service/index.js'
import { AlreadyExistsError, createdBy } from '../store/service/index.js'
import {
  AGENT_TOKEN_KEY_SETTING,
  DEFAULT_TOKEN_TTL_MS,
  generateDerivationKey,
  generateSecret,
  hashSecret,
  WORKSPACE_ADMINISTRATOR,
} from './token-secrets.js'

/** Id of the token created on first start. */
export const BOOTSTRAP_TOKEN_ID = 'admin'

/**
 * Creates the first administrator token when the database holds no token at all. Resolves to
 * the secret when one was generated here (to print once), else undefined.
 */
export async function bootstrapAdminToken(
  store: ServiceStore,
  given: string | undefined,
): Promise<string | undefined> {
  if ((await store.tokens.count()) > 0) return undefined
  if (given !== undefined && given.length < 16) {
    throw new Error('REGENT_ADMIN_TOKEN must be at least 16 characters long')
  }
  const secret = given ?? generateSecret()
  const now = new Date()
  const actor = { by: 'regent', through: 'bootstrap' }
  try {
    await store.transaction(async (tx) => {
      await tx.tokens.insert({
        id: BOOTSTRAP_TOKEN_ID,
        description: 'administrator token created on first start',
        secret_hash: hashSecret(secret),
        allow_path_patterns: '[]',
        ttl: '',
        expires_at: new Date(now.getTime() + DEFAULT_TOKEN_TTL_MS).toISOString(),
        roles: JSON.stringify([WORKSPACE_ADMINISTRATOR]),
        system_id: null,
        generation: 0,
        ...createdBy(actor, now),
      })
      // Grants are what authorization reads; the row's `roles` only records what it was made with.
      const bindingId = `token-${BOOTSTRAP_TOKEN_ID}-${WORKSPACE_ADMINISTRATOR}`
      await tx.grants.put(
        {
          id: bindingId,
          name: bindingId,
          description: 'the first administrator token',
          role: WORKSPACE_ADMINISTRATOR,
          resourceKind: 'workspace',
          resourceId: '',
          subjects: [{ kind: 'token', id: BOOTSTRAP_TOKEN_ID }],
        },
        actor,
        now,
      )
    })
  } catch (err) {
    if (err instanceof AlreadyExistsError) return undefined // another replica bootstrapped first
    throw err
  }
  return given === undefined ? secret : undefined
}

/** The agent-token derivation key, created on first start. */
export function agentTokenKey(store: ServiceStore): Promise<string> {
  return store.settings.getOrInit(AGENT_TOKEN_KEY_SETTING, generateDerivationKey())
}
