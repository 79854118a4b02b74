/**
 * The log flags of `regent run -s`: `--log-format json|json-pretty|text`, `-l/--log-level` and
 * `--log-timestamp-format` (a Go layout), through the real logger into a stream.
 */
import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createAgentLogger, formatLine, type LogFormat } from '../../agent/log-format.js'
import { formatTime } from '../../core/rego/builtins/go-layout.js'

function capture(
  format: LogFormat | undefined,
  extra: { timestampFormat?: string; level?: 'info' | 'error' } = {},
) {
  let text = ''
  const output = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk)
      done()
    },
  })
  const logger = createAgentLogger({
    level: extra.level ?? 'info',
    ...(format ? { format } : {}),
    ...(extra.timestampFormat ? { timestampFormat: extra.timestampFormat } : {}),
    output,
  })
  return { logger, text: () => text }
}

describe('log formats', () => {
  it('json: one object a line', () => {
    const { logger, text } = capture('json')
    logger.info({ addr: 'http://127.0.0.1:1' }, 'listening')
    const entry = JSON.parse(text().trim()) as Record<string, unknown>
    expect(entry).toMatchObject({ msg: 'listening', addr: 'http://127.0.0.1:1', level: 30 })
  })

  it('json-pretty: each object indented, level by name', () => {
    const { logger, text } = capture('json-pretty')
    logger.info({ addr: 'x' }, 'listening')
    expect(text()).toContain('\n  "level": "info",\n')
    expect(JSON.parse(text())).toMatchObject({ msg: 'listening', level: 'info' })
  })

  it('text: logrus-style key=value, quoting what needs it', () => {
    const { logger, text } = capture('text')
    logger.info({ addr: 'http://127.0.0.1:1', n: 2 }, 'server started')
    expect(text()).toMatch(
      /^time=\S+ level=info msg="server started" pid=\d+ addr="http:\/\/127\.0\.0\.1:1" n=2\n$/,
    )
  })

  it('-l error drops info lines; tokens are redacted in every format', () => {
    const quiet = capture('text', { level: 'error' })
    quiet.logger.info('hidden')
    quiet.logger.error({ headers: { authorization: 'Bearer s3cret' } }, 'failed')
    expect(quiet.text()).not.toContain('hidden')
    expect(quiet.text()).not.toContain('s3cret')
    expect(quiet.text()).toContain('msg=failed')
  })

  it('--log-timestamp-format writes the time with the Go layout', () => {
    const { logger, text } = capture('json', { timestampFormat: '2006-01-02' })
    logger.info('x')
    const time = (JSON.parse(text()) as { time: string }).time
    expect(time).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    expect(formatLine('not json', 'text', undefined)).toBe('not json')
  })
})

describe('Go time layouts', () => {
  const goTime = (d: Date, layout: string) => formatTime(BigInt(d.getTime()) * 1_000_000n, 'Local', layout)
  const utc = process.env.TZ
  it('formats the reference layouts', () => {
    process.env.TZ = 'UTC'
    try {
      const d = new Date(Date.UTC(2026, 0, 5, 13, 4, 9, 120))
      // RFC 3339 (OPA's default), with fractions, kitchen and ANSIC-like layouts.
      expect(goTime(d, '2006-01-02T15:04:05Z07:00')).toBe('2026-01-05T13:04:09Z')
      expect(goTime(d, '2006-01-02T15:04:05.000Z07:00')).toBe('2026-01-05T13:04:09.120Z')
      expect(goTime(d, '15:04:05.999999')).toBe('13:04:09.12')
      expect(goTime(d, '3:04PM')).toBe('1:04PM')
      expect(goTime(d, 'Mon Jan _2 15:04:05 2006')).toBe('Mon Jan  5 13:04:09 2026')
      expect(goTime(d, 'Monday, 02-January-06 -0700')).toBe('Monday, 05-January-26 +0000')
    } finally {
      if (utc === undefined) delete process.env.TZ
      else process.env.TZ = utc
    }
  })
})
