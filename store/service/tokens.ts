/** API tokens: rows keyed by id, looked up by the hash of their secret. */
import type { Kysely, Selectable } from 'kysely'
import { AlreadyExistsError, isUniqueViolation } from './errors.js'
import { ReadCache } from './read-cache.js'
import type { ServiceTables, TokensTable } from './tables.js'

/** A stored token (never its secret). */
export type TokenRow = Selectable<TokensTable>

/** Reads and writes the `tokens` table. */
export class TokenRepository {
  constructor(
    private readonly db: Kysely<ServiceTables>,
    /** Shared by the store and its transactions; every write here drops it (read-cache.ts). */
    private readonly cache: ReadCache<TokenRow> = new ReadCache(0),
  ) {}

  /** Every token, ordered by id. */
  list(): Promise<TokenRow[]> {
    return this.db.selectFrom('tokens').selectAll().orderBy('id').execute()
  }

  get(id: string): Promise<TokenRow | undefined> {
    return this.db.selectFrom('tokens').selectAll().where('id', '=', id).executeTakeFirst()
  }

  /** The token whose secret hashes to `secretHash`, if any. */
  findByHash(secretHash: string): Promise<TokenRow | undefined> {
    return this.db.selectFrom('tokens').selectAll().where('secret_hash', '=', secretHash).executeTakeFirst()
  }

  /**
   * `findByHash` through the store's short-lived cache (authentication on every request): a
   * write through this process is seen at once, one by another process within the cache's TTL.
   */
  findByHashCached(secretHash: string): Promise<TokenRow | undefined> {
    return this.cache.get(secretHash, () => this.findByHash(secretHash))
  }

  /** The token by secret hash when the cache holds a fresh copy (no database read), else undefined. */
  findByHashIfCached(secretHash: string): TokenRow | undefined {
    return this.cache.peek(secretHash)
  }

  /** The agent token of a system. */
  findForSystem(systemId: string): Promise<TokenRow | undefined> {
    return this.db.selectFrom('tokens').selectAll().where('system_id', '=', systemId).executeTakeFirst()
  }

  count(): Promise<number> {
    return this.db
      .selectFrom('tokens')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n))
  }

  /** @throws AlreadyExistsError when the id (or, improbably, the secret hash) is taken. */
  async insert(row: TokenRow): Promise<void> {
    try {
      await this.db.insertInto('tokens').values(row).execute()
      this.cache.invalidate()
    } catch (err) {
      if (isUniqueViolation(err)) throw new AlreadyExistsError(`token ${row.id} already exists`)
      throw err
    }
  }

  /** Replaces every column but the id; resolves to false when the token is gone. */
  async replace(row: TokenRow): Promise<boolean> {
    const { id, ...rest } = row
    const result = await this.db.updateTable('tokens').set(rest).where('id', '=', id).executeTakeFirst()
    this.cache.invalidate()
    return Number(result.numUpdatedRows) > 0
  }

  /** Resolves to false when there was nothing to delete. */
  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('tokens').where('id', '=', id).executeTakeFirst()
    this.cache.invalidate()
    return Number(result.numDeletedRows) > 0
  }

  async deleteForSystem(systemId: string): Promise<void> {
    await this.db.deleteFrom('tokens').where('system_id', '=', systemId).execute()
    this.cache.invalidate()
  }
}
