/**
 * The rows a new system is made of, written inside the caller's transaction: the system itself
 * and its agent token (bound to that system only). The systems route and blueprints both create
 * systems through this one function, so a system made either way is the same.
 */
import {
  type Actor,
  createdBy,
  type ServiceRepositories,
  type StoredBinding,
} from '../../store/service/index.js'
import { assertSecretsExist, systemSecretReferences } from '../secrets/references.js'
import { type SystemFields, storedConfig } from '../system-config.js'
import { agentTokenId, deriveAgentSecret, hashSecret } from '../token-secrets.js'

export interface NewSystem {
  id: string
  name: string
  type: string
  fields: SystemFields
}

/**
 * Inserts the system, its agent token and `bindings` (what its creator is granted on it).
 * @throws HttpError 400 when its source control names a secret that is not stored;
 *   AlreadyExistsError on a taken id or name.
 */
export async function insertSystem(
  tx: ServiceRepositories,
  agentTokenKey: string,
  system: NewSystem,
  actor: Actor,
  {
    bindings = [],
    now = new Date(),
  }: { bindings?: ReadonlyArray<Omit<StoredBinding, 'meta'>>; now?: Date } = {},
): Promise<void> {
  await assertSecretsExist(tx, systemSecretReferences(system.fields))
  await tx.systems.insert({
    id: system.id,
    name: system.name,
    type: system.type,
    config: JSON.stringify(storedConfig(system.fields)),
    status: 'Pending',
    status_errors: null,
    content_version: 1,
    ...createdBy(actor, now),
  })
  const tokenId = agentTokenId(system.id)
  await tx.tokens.insert({
    id: tokenId,
    description: `agent token of system ${system.id}`,
    secret_hash: hashSecret(deriveAgentSecret(agentTokenKey, tokenId, 0)),
    allow_path_patterns: '[]',
    ttl: '',
    expires_at: '9999-12-31T23:59:59.999Z',
    roles: '[]',
    system_id: system.id,
    generation: 0,
    ...createdBy(actor, now),
  })
  for (const binding of bindings) await tx.grants.put(binding, actor, now)
}
