#!/usr/bin/env node
// Launcher for `regent`. In a source checkout (cli/main.ts present) it runs the TypeScript
// directly through tsx, so `npx regent` works right after `npm ci` with no build step and is
// never stale. In the image only `dist/` ships, and the compiled JavaScript runs.
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const source = join(root, 'cli', 'main.ts')

if (existsSync(source)) {
  const { register } = await import('tsx/esm/api')
  register()
  await import(pathToFileURL(source).href)
} else {
  await import(pathToFileURL(join(root, 'dist', 'cli', 'main.js')).href)
}
