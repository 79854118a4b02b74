/**
 * What `regent test -l debug` logs: one line per test with its outcome, so a slow or failing test
 * can be found in a CI log without changing the report on stdout. Lines go to stderr in the
 * `--log-format` chosen; at the default level (info) the run logs nothing and stderr stays as
 * `opa test` leaves it.
 */
import type { CommandLog } from '../command-log.js'
import type { TestResult } from './test.js'

/** `pass`, `fail`, `skip` or `error`: the outcome of one test as a log field. */
function outcomeField(r: TestResult): string {
  if (r.test.skip) return 'skip'
  if (r.error !== undefined) return 'error'
  return r.fail ? 'fail' : 'pass'
}

/** Logs each result at debug level. */
export function logResults(log: CommandLog, results: readonly TestResult[]): void {
  for (const r of results) {
    log.debug('test finished', {
      name: `${r.test.pkg}.${r.test.name}`,
      result: outcomeField(r),
      duration_ns: r.durationNs,
      ...(r.error !== undefined ? { error: r.error } : {}),
    })
  }
}
