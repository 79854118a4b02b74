import { describe, expect, it } from 'vitest'
import { storedConfig, systemFieldsSchema } from '../../service/system-config.js'

function problems(value: unknown): string[] {
  const result = systemFieldsSchema.safeParse(value)
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)
}

const ssh = (origin: Record<string, unknown>) => ({ name: 'n', type: 't', source_control: { origin } })

describe('system requests', () => {
  it('accepts git over https and the SSH shape of rules 2 and 3', () => {
    expect(
      problems(
        ssh({
          url: 'https://github.com/o/r.git',
          reference: 'refs/heads/main',
          credentials: 'git-creds',
          path: 'p',
        }),
      ),
    ).toEqual([])
    const good = {
      url: 'git@github.com:o/r.git',
      credentials: '',
      ssh_credentials: { private_key: 'key-id', passphrase: 'pass-id' },
      reference: 'main',
      commit: '',
      path: '',
    }
    expect(problems(ssh(good))).toEqual([])
  })

  it('refuses SSH configs that break rules 2 and 3, naming the field', () => {
    const base = { url: 'ssh://git@host/r.git', ssh_credentials: { private_key: 'k', passphrase: 'p' } }
    expect(problems(ssh(base))).toEqual([
      expect.stringMatching(/^source_control\.origin\.credentials: .*present and empty/),
    ])
    expect(problems(ssh({ ...base, credentials: 'x' }))).toHaveLength(1)
    expect(problems(ssh({ url: 'git@h:r.git', credentials: '' }))).toEqual([
      expect.stringMatching(/ssh_credentials: required/),
    ])
    expect(
      problems(ssh({ ...base, credentials: '', ssh_credentials: { private_key: 'k', passphrase: '' } })),
    ).toEqual([expect.stringMatching(/ssh_credentials\.passphrase/)])
    expect(problems(ssh({ ...base, credentials: '', ssh_credentials: { private_key: 'k' } }))).toHaveLength(1)
  })

  it('refuses reference and commit together, bad URLs and unknown fields', () => {
    expect(problems(ssh({ url: 'https://h/r', reference: 'main', commit: 'abc' }))).toEqual([
      expect.stringMatching(/^source_control\.origin\.commit/),
    ])
    expect(problems(ssh({ url: 'not a url' }))).toEqual([expect.stringMatching(/url/)])
    expect(problems({ name: 'n', type: 't', colour: 'red' })).toEqual([expect.stringMatching(/colour/)])
  })

  it('keeps only settable fields in the stored config', () => {
    const fields = systemFieldsSchema.parse({
      name: 'n',
      type: 't',
      description: 'd',
      status: 'Ready',
      id: 'x',
      read_only: true,
    })
    expect(storedConfig(fields)).toEqual({ description: 'd', read_only: true })
  })
})
