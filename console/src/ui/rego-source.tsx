/**
 * Rego source, syntax-highlighted with Prism's `rego` grammar (bundled; no CDN). Prism escapes
 * the source before wrapping tokens in spans, so the HTML it returns holds no markup of the
 * policy's own. Token colours are in rego-source.css, in both themes.
 */
import Prism from 'prismjs'
import 'prismjs/components/prism-rego'
import './rego-source.css'

// Prism's grammar predates Rego v1: its keywords `if`, `contains`, `in` and `every` are added once,
// at load, to the bundled copy.
if (Prism.languages.rego) {
  Prism.languages.rego.keyword =
    /\b(?:as|contains|default|else|every|if|import|in|not|null|package|set(?=\s*\()|some|with)\b/
}

export function RegoSource({ source, label }: { source: string; label: string }) {
  const grammar = Prism.languages.rego
  const html = grammar ? Prism.highlight(source, grammar, 'rego') : undefined
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1).
    <section class="rego-source" aria-label={label} tabIndex={0}>
      {html === undefined ? (
        <pre class="source">{source}</pre>
      ) : (
        // Prism's output: the source escaped, wrapped in token spans. No `language-*` class, so
        // Prism's automatic highlighting of the page never touches it.
        <pre class="source rego" dangerouslySetInnerHTML={{ __html: html }} />
      )}
    </section>
  )
}
