/**
 * SSH credentials for one git command. The private key goes into a 0600 file in the command's
 * private folder; a passphrase goes into another 0600 file that ssh reads through `SSH_ASKPASS`
 * (a 0700 script) — node:crypto cannot read the OpenSSH key format `ssh-keygen` writes by default,
 * so ssh decrypts the key itself. `GIT_SSH_COMMAND` holds only file paths and options; user and
 * system ssh configuration, agents and other identities are ignored.
 */
import { setUpKnownHosts } from './known-hosts.js'
import type { PrivateDir } from './private-dir.js'
import { shellQuote } from './private-dir.js'
import type { SshCredentials } from './types.js'

export interface SshSetup {
  env: Record<string, string>
  recordLearnt(): Promise<void>
}

export async function sshCredentialEnv(
  dir: PrivateDir,
  credentials: SshCredentials,
  host: string,
  port: number,
  timeoutMs: number,
): Promise<SshSetup> {
  const knownHosts = await setUpKnownHosts(dir, credentials.hostKeys, host, port, timeoutMs)
  const key = credentials.privateKey.endsWith('\n') ? credentials.privateKey : `${credentials.privateKey}\n`
  const keyFile = await dir.writeSecret('id_key', key)
  const options = [
    '-F /dev/null',
    `-i ${shellQuote(keyFile)}`,
    '-o IdentitiesOnly=yes',
    '-o IdentityAgent=none',
    `-o UserKnownHostsFile=${shellQuote(knownHosts.file)}`,
    '-o GlobalKnownHostsFile=/dev/null',
    `-o StrictHostKeyChecking=${knownHosts.strict}`,
    '-o HashKnownHosts=no',
    '-o UpdateHostKeys=no',
    '-o PreferredAuthentications=publickey',
    '-o PasswordAuthentication=no',
    '-o KbdInteractiveAuthentication=no',
    '-o NumberOfPasswordPrompts=1',
    `-o ConnectTimeout=${Math.max(1, Math.ceil(timeoutMs / 1000))}`,
  ]
  const env: Record<string, string> = { GIT_SSH_VARIANT: 'ssh' }
  if (credentials.passphrase !== undefined && credentials.passphrase !== '') {
    const passphraseFile = await dir.writeSecret('passphrase', credentials.passphrase)
    env.SSH_ASKPASS = await dir.writeScript('ssh-askpass', `#!/bin/sh\ncat ${shellQuote(passphraseFile)}\n`)
    env.SSH_ASKPASS_REQUIRE = 'force'
  } else {
    options.push('-o BatchMode=yes')
  }
  env.GIT_SSH_COMMAND = `ssh ${options.join(' ')}`
  return { env, recordLearnt: () => knownHosts.recordLearnt() }
}

export function sshSecrets(credentials: SshCredentials): string[] {
  const secrets = [credentials.privateKey]
  if (credentials.passphrase) secrets.push(credentials.passphrase)
  return secrets
}
