import { describe, expect, it } from 'vitest'
import { expectError, json } from './helpers.js'

describe('strings.render_template', () => {
  it('renders Go templates', () => {
    expect(json('strings.render_template', '{{.test}}', { test: 'hello world' })).toBe('"hello world"')
    expect(json('strings.render_template', '{{.test}}', { test: 2023 })).toBe('"2023"')
    expect(json('strings.render_template', 'Hi {{.user.name}}!', { user: { name: 'ana' } })).toBe('"Hi ana!"')
    expect(json('strings.render_template', '{{range .xs}}[{{.}}]{{end}}', { xs: [1, 'a', true] })).toBe(
      '"[1][a][true]"',
    )
    expect(json('strings.render_template', '{{if .ok}}yes{{else}}no{{end}}', { ok: false })).toBe('"no"')
    expect(json('strings.render_template', '{{with .u}}{{.n}}{{end}}', { u: { n: 1 } })).toBe('"1"')
    expect(json('strings.render_template', 'a {{- " b " -}} c', {})).toBe('"a b c"')
    expect(
      json('strings.render_template', '{{if eq .x "a"}}A{{end}}{{len .xs}}{{index .xs 1}}', {
        x: 'a',
        xs: [5, 6],
      }),
    ).toBe('"A26"')
    expect(json('strings.render_template', '{{.m}} {{.l}}', { m: { b: 2, a: 1 }, l: [1, 2] })).toBe(
      '"map[a:1 b:2] [1 2]"',
    )
    expect(json('strings.render_template', '{{printf "%03d" .n}}', { n: 7 })).toBe('"007"')
  })

  it('fails on missing keys and broken templates', () => {
    expectError(
      'eval_builtin_error',
      'map has no entry for key "nope"',
      'strings.render_template',
      '{{.nope}}',
      {},
    )
    expectError('eval_builtin_error', 'unexpected EOF', 'strings.render_template', '{{if .x}}', { x: 1 })
    expectError('eval_builtin_error', 'unclosed action', 'strings.render_template', '{{.x', { x: 1 })
  })
})
