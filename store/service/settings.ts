/** Service-wide settings that must be shared by every replica (e.g. the agent-token key). */
import type { Kysely } from 'kysely'
import type { ServiceTables } from './tables.js'

/** Reads and writes the `settings` key-value table. */
export class SettingsRepository {
  constructor(private readonly db: Kysely<ServiceTables>) {}

  async get(key: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst()
    return row?.value
  }

  /**
   * Stores a row of `bytes` and removes it again (call inside a transaction): the commit needs
   * room on the disk as a small write would, so it fails while the disk is full.
   */
  async writeAndRemoveProbe(bytes: number): Promise<void> {
    const key = 'regent.write_probe'
    await this.db
      .insertInto('settings')
      .values({ key, value: 'x'.repeat(bytes) })
      .execute()
    await this.db.deleteFrom('settings').where('key', '=', key).execute()
  }

  /**
   * Stores `value` unless the key already has one, and resolves to the value that won: replicas
   * starting at once agree on a single value.
   */
  async getOrInit(key: string, value: string): Promise<string> {
    await this.db
      .insertInto('settings')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute()
    return (await this.get(key)) ?? value
  }
}
