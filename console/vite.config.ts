/**
 * Builds the console into `dist/console` (served by `regent service` at `/console/`). Every
 * script and style ends up in hashed files under `assets/`, so the page needs no inline script
 * and the service can send a strict Content-Security-Policy and cache assets for a year.
 */
import { fileURLToPath } from 'node:url'
import preact from '@preact/preset-vite'
import { defineConfig } from 'vite'

const here = fileURLToPath(new URL('.', import.meta.url))

export default defineConfig({
  root: here,
  base: '/console/',
  plugins: [preact()],
  build: {
    outDir: process.env.REGENT_CONSOLE_OUT ?? fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    // No inline data: URLs for small assets: the CSP allows scripts and styles from 'self' only.
    assetsInlineLimit: 0,
    // The console is one small app; a size report is printed by the benchmark instead.
    reportCompressedSize: false,
    target: 'es2022',
  },
})
