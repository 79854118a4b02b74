/**
 * HTTPS credentials for one git command: the username and password go into 0600 files in the
 * command's private folder, and git asks for them through `GIT_ASKPASS`, a 0700 script that
 * prints the files. The values never appear on a command line (`-c http.extraHeader=…` would show
 * in `ps`) nor in any environment: the environment holds only the script's path.
 */
import type { PrivateDir } from './private-dir.js'
import { shellQuote } from './private-dir.js'
import type { HttpCredentials } from './types.js'

export async function httpCredentialEnv(
  dir: PrivateDir,
  credentials: HttpCredentials,
): Promise<Record<string, string>> {
  const username =
    credentials.kind === 'basic' ? credentials.username : (credentials.username ?? 'x-access-token')
  const password = credentials.kind === 'basic' ? credentials.password : credentials.token
  const userFile = await dir.writeSecret('username', username)
  const passwordFile = await dir.writeSecret('password', password)
  // git calls the script with the prompt ("Username for 'https://host': " or "Password for …").
  const script = await dir.writeScript(
    'askpass',
    `#!/bin/sh\ncase "$1" in\n  Username*) cat ${shellQuote(userFile)} ;;\n  *) cat ${shellQuote(passwordFile)} ;;\nesac\n`,
  )
  return { GIT_ASKPASS: script }
}

export function httpSecrets(credentials: HttpCredentials): string[] {
  return credentials.kind === 'basic' ? [credentials.password] : [credentials.token]
}
