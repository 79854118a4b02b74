/**
 * The buffer's SQLite file: pragmas, tables, and the checks made when it is opened.
 *
 * Events keep their JSON text exactly as received (`body`); only `decision_id`, `timestamp` and
 * `labels.id` are copied out for the indexes. `seq` (AUTOINCREMENT, never reused) is the ingest
 * order. Upload state lives in `batches`: a row there marks the seq range of an upload in flight,
 * so claiming a batch writes one row instead of updating every event it covers.
 */
import { existsSync, renameSync } from 'node:fs'
import Database from 'better-sqlite3'
import { createPrivateFile } from '../../core/state-files.js'
import type { IntegrityCheck, SyncMode } from './types.js'

/** Schema version in `PRAGMA user_version`; bump with a migration step when the tables change. */
export const SCHEMA_VERSION = 1

const SCHEMA_V1 = `
CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  received_at INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  decision_id TEXT,
  timestamp TEXT,
  agent_id TEXT,
  body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_decision_id ON events(decision_id);
CREATE INDEX IF NOT EXISTS events_by_timestamp ON events(timestamp);
CREATE INDEX IF NOT EXISTS events_by_agent_id ON events(agent_id);

CREATE TABLE IF NOT EXISTS batches (
  id INTEGER PRIMARY KEY,
  state TEXT NOT NULL CHECK (state IN ('in_flight')),
  first_seq INTEGER NOT NULL,
  last_seq INTEGER NOT NULL,
  events INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  last_status INTEGER,
  last_error TEXT,
  claimed_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS batches_by_state ON batches(state, first_seq);

CREATE TABLE IF NOT EXISTS dead_batches (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  events INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  status INTEGER NOT NULL,
  reason TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  dead_at INTEGER NOT NULL,
  first_received_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS dead_events (
  seq INTEGER PRIMARY KEY,
  dead_batch_id INTEGER NOT NULL REFERENCES dead_batches(id),
  received_at INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  decision_id TEXT,
  timestamp TEXT,
  agent_id TEXT,
  body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS dead_events_by_batch ON dead_events(dead_batch_id);
`

/** Page size of new buffer files (see connect). */
export const PAGE_SIZE = 16384

/** The buffer file cannot be used; the message says why and what to do. */
export class BufferOpenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'BufferOpenError'
  }
}

export interface OpenedDatabase {
  db: Database.Database
  /** Path the corrupt file was moved to when the integrity check failed, else undefined. */
  quarantinedTo?: string
  /** In-flight batches found at start and returned to pending. */
  recoveredBatches: number
}

/**
 * Opens (creating when absent) the buffer file in WAL mode, runs the integrity check, migrates
 * the schema and returns in-flight batches to pending.
 *
 * A file that fails the integrity check (or is not a database) is renamed to
 * `<path>.corrupt-<time>` and a fresh one is created: the relay keeps taking decisions, and the
 * damaged file stays for an operator to salvage with the sqlite3 shell.
 */
export function openBufferDatabase(
  path: string,
  options: {
    sync: SyncMode
    busyTimeoutMs: number
    integrityCheck: IntegrityCheck
    recoverInFlight: boolean
  },
): OpenedDatabase {
  let quarantinedTo: string | undefined
  let db = connect(path, options)
  const problem = options.integrityCheck === 'off' ? undefined : integrityProblem(db, options.integrityCheck)
  if (problem !== undefined) {
    db.close()
    quarantinedTo = `${path}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`
    for (const suffix of ['', '-wal', '-shm']) {
      if (existsSync(path + suffix)) renameSync(path + suffix, quarantinedTo + suffix)
    }
    db = connect(path, options)
  }
  migrate(db)
  // Batches in flight when the last process died go back to pending: their rows never left
  // `events`, so dropping the claim is the whole recovery.
  const recoveredBatches = options.recoverInFlight ? db.prepare('DELETE FROM batches').run().changes : 0
  return { db, quarantinedTo, recoveredBatches }
}

function connect(path: string, options: { sync: SyncMode; busyTimeoutMs: number }): Database.Database {
  let db: Database.Database
  try {
    // Decisions carry their inputs: the file (and so its -wal and -shm) is private to this user.
    createPrivateFile(path)
    db = new Database(path, { timeout: options.busyTimeoutMs })
  } catch (err) {
    throw new BufferOpenError(`cannot open the decision-log buffer ${path}: ${(err as Error).message}`, {
      cause: err,
    })
  }
  try {
    // 16 KiB pages for a new file (an existing one keeps its size): events are ~1 KB, and
    // larger pages mean fewer pages written to the WAL and copied at checkpoints per event
    // (appends cost about a quarter less CPU than with the default 4 KiB). It must come before
    // WAL mode, which fixes the page size.
    db.pragma(`page_size = ${PAGE_SIZE}`)
    db.pragma('journal_mode = WAL')
    db.pragma(`synchronous = ${options.sync === 'full' ? 'FULL' : 'NORMAL'}`)
    // 2 MB of page cache (SQLite's default). Appends touch the table's last page and a few
    // pages of each index; only the decision_id index is written at random places, and at 1M
    // events it is ~50 MB, which no affordable cache holds (misses are served by the OS's page
    // cache). 8 MB here cost the relay 6 MB of resident memory for no measurable gain
    // (docs/performance.md, "Relay memory with 1M events buffered").
    db.pragma('cache_size = -2048')
    db.pragma('temp_store = MEMORY')
  } catch (err) {
    // e.g. SQLITE_NOTADB: handled like a failed integrity check by the caller.
    if (!isCorruption(err)) {
      db.close()
      throw new BufferOpenError(`cannot use the decision-log buffer ${path}: ${(err as Error).message}`, {
        cause: err,
      })
    }
  }
  return db
}

function integrityProblem(db: Database.Database, mode: 'quick' | 'full'): string | undefined {
  try {
    const rows = db.pragma(mode === 'quick' ? 'quick_check' : 'integrity_check') as Array<
      Record<string, string>
    >
    const messages = rows.map((row) => Object.values(row)[0] ?? '').filter((m) => m !== 'ok')
    return messages.length === 0 ? undefined : messages.slice(0, 5).join('; ')
  } catch (err) {
    if (isCorruption(err)) return (err as Error).message
    throw new BufferOpenError(`cannot check the decision-log buffer: ${(err as Error).message}`, {
      cause: err,
    })
  }
}

function isCorruption(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? ''
  return code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB'
}

function migrate(db: Database.Database): void {
  const version = db.pragma('user_version', { simple: true }) as number
  if (version > SCHEMA_VERSION) {
    throw new BufferOpenError(
      `the decision-log buffer has schema version ${version}, newer than this regent (${SCHEMA_VERSION}); upgrade regent`,
    )
  }
  if (version < 1) {
    db.transaction(() => {
      db.exec(SCHEMA_V1)
      db.pragma(`user_version = ${SCHEMA_VERSION}`)
    }).immediate()
  }
}
