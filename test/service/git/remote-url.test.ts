import { describe, expect, it } from 'vitest'
import { GitError } from '../../../service/git/errors.js'
import { parseRemoteUrl, redactUrl } from '../../../service/git/remote-url.js'

describe('parseRemoteUrl', () => {
  it('recognises each supported transport and the ssh host and port', () => {
    expect(parseRemoteUrl('https://github.com/o/r.git')).toEqual({
      transport: 'http',
      url: 'https://github.com/o/r.git',
    })
    expect(parseRemoteUrl('git://127.0.0.1:9418/r.git').transport).toBe('git')
    expect(parseRemoteUrl('file:///srv/r.git').transport).toBe('file')
    expect(parseRemoteUrl('/srv/r.git').transport).toBe('file')
    expect(parseRemoteUrl('ssh://git@example.com:2222/o/r.git')).toMatchObject({
      transport: 'ssh',
      host: 'example.com',
      port: 2222,
    })
    expect(parseRemoteUrl('git@github.com:o/r.git')).toMatchObject({
      transport: 'ssh',
      host: 'github.com',
      port: 22,
    })
    expect(parseRemoteUrl('git@[10.0.0.1:2200]:o/r.git')).toMatchObject({
      transport: 'ssh',
      host: '10.0.0.1',
      port: 2200,
    })
    expect(parseRemoteUrl('ssh://[::1]/r.git')).toMatchObject({ transport: 'ssh', host: '::1', port: 22 })
  })

  it('refuses helpers, other schemes, option-like and credential-carrying URLs, naming the field', () => {
    for (const url of [
      '',
      'ext::sh -c id',
      'fd::3',
      'ftp://h/r',
      '-uhack',
      'relative/dir',
      'https://u:p4ss@h/r',
      'https://tok3n@h/r',
      'ssh://u:p4ss@h/r',
      'http://',
      'https://h/r\nx',
    ]) {
      let error: unknown
      try {
        parseRemoteUrl(url)
      } catch (e) {
        error = e
      }
      expect(error, url).toBeInstanceOf(GitError)
      expect((error as GitError).code).toBe('invalid_input')
      expect((error as GitError).field).toBe('url')
      expect((error as GitError).message).not.toMatch(/p4ss|tok3n/)
    }
  })

  it('redacts user-info for messages', () => {
    expect(redactUrl('https://user:pw@h/r')).toBe('https://***@h/r')
  })
})
