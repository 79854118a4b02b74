import { describe, expect, it } from 'vitest'
import { runRegent } from '../support/run-cli.js'

describe('regent', () => {
  it('prints help with the commands and exits 0', async () => {
    const { code, stdout } = await runRegent(['--help'])
    expect(code).toBe(0)
    expect(stdout).toContain('Usage: regent')
    expect(stdout).toContain('version')
  })

  it('prints its version, Node.js version and platform', async () => {
    const { code, stdout } = await runRegent(['version', '-f', 'json'])
    expect(code).toBe(0)
    const info = JSON.parse(stdout) as Record<string, string>
    expect(info.version).toMatch(/^\d+\.\d+\.\d+/)
    expect(info.node).toBe(process.versions.node)
    expect(info.platform).toBe(`${process.platform}/${process.arch}`)
  })

  it('exits 2 with a one-line hint on an unknown command', async () => {
    const { code, stderr, stdout } = await runRegent(['versoin'])
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr.trim().split('\n')).toHaveLength(1)
    expect(stderr).toContain("unknown command 'versoin'")
    expect(stderr).toContain('Did you mean version?')
  })

  it('exits 2 on an unknown flag', async () => {
    const { code, stderr } = await runRegent(['version', '--frobnicate'])
    expect(code).toBe(2)
    expect(stderr).toContain("unknown option '--frobnicate'")
  })
})
