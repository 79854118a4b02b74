/**
 * The real-world ratchet: public policy libraries' own tests (green under OPA) must pass under
 * regent at least as often as recorded in threshold.json (raise it as the engine improves, never
 * lower it). The failures still open are listed with their causes in docs/conformance.md.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { corpusPresent, DEFAULT_FOLDER, parseRunOutput, runRealworld } from './runner.js'

const folder = process.env.REGENT_REALWORLD_DIR ?? DEFAULT_FOLDER
const threshold = JSON.parse(readFileSync(new URL('./threshold.json', import.meta.url), 'utf8')) as {
  passed: number
}
const present = corpusPresent(folder)
if (!present) console.warn(`realworld: ${folder}/run.sh not found; skipping the real-world ratchet`)

describe('run.sh output', () => {
  it('reads per-library lines and the totals', () => {
    const result = parseRunOutput(
      'lib_a: 3 passed, 1 failed (4 tests, 2 invocations, 1.5 s)\nlib_b: 0 passed, 2 failed (2 tests, 1 invocations, 0.2 s)\n3 passed, 3 failed\n',
    )
    expect(result).toEqual({
      libraries: [
        { name: 'lib_a', passed: 3, failed: 1, invocations: 2, seconds: 1.5 },
        { name: 'lib_b', passed: 0, failed: 2, invocations: 1, seconds: 0.2 },
      ],
      passed: 3,
      failed: 3,
    })
  })

  it('refuses output without the totals line', () => {
    expect(() => parseRunOutput('lib_a: 3 passed, 1 failed (4 tests, 2 invocations, 1.5 s)\n')).toThrow(
      /no "N passed/,
    )
  })
  it("runs a corpus folder's run.sh from the project root, passing ONLY through", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-realworld-'))
    try {
      // A stand-in corpus: reports where it runs (run.sh resolves bin/regent.js against it) and ONLY.
      writeFileSync(
        join(dir, 'run.sh'),
        'test -f bin/regent.js || exit 3\necho "lib_$ONLY: 5 passed, 2 failed (7 tests, 1 invocations, 0.1 s)"\necho "5 passed, 2 failed"\n',
      )
      const lines: string[] = []
      const result = await runRealworld(dir, { only: 'x', onLine: (l) => lines.push(l) })
      expect(result.passed).toBe(5)
      expect(result.libraries.map((l) => l.name)).toEqual(['lib_x'])
      expect(lines).toEqual([
        'lib_x: 5 passed, 2 failed (7 tests, 1 invocations, 0.1 s)',
        '5 passed, 2 failed',
      ])
      expect(corpusPresent(dir)).toBe(true)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe.skipIf(!present)('real-world policy libraries', () => {
  // The whole corpus takes about 30 s on an idle machine (one process per upstream invocation);
  // the timeout leaves room for a loaded CI runner.
  it(`pass at least ${threshold.passed} tests`, { timeout: 600_000 }, async () => {
    const result = await runRealworld(folder)
    if (result.passed < threshold.passed) {
      for (const lib of result.libraries)
        console.log(`${lib.name}: ${lib.passed} passed, ${lib.failed} failed`)
    }
    expect(result.passed).toBeGreaterThanOrEqual(threshold.passed)
  })
})
