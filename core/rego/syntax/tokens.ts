/**
 * Token kinds of the Rego lexer. Kinds are small integers so the token stream can live in typed
 * arrays (see lexer.ts); `TOKEN_NAMES` gives the spelling used in error messages, which follows
 * OPA's (`unexpected } token`, `unexpected if keyword`).
 */

/** Token kinds. */
export const T = {
  EOF: 0,
  Illegal: 1,
  Ident: 2,
  Number: 3,
  String: 4,
  RawString: 5,
  /** `$"...{` or `}...{` inside a template string. */
  TemplatePart: 6,
  /** `$"..."` or `}..."`. */
  TemplateEnd: 7,
  RawTemplatePart: 8,
  RawTemplateEnd: 9,

  LBrace: 10,
  RBrace: 11,
  LBrack: 12,
  RBrack: 13,
  LParen: 14,
  RParen: 15,
  Dot: 16,
  Comma: 17,
  Semicolon: 18,
  Colon: 19,

  Unify: 20,
  Assign: 21,
  Equal: 22,
  Neq: 23,
  Lt: 24,
  Lte: 25,
  Gt: 26,
  Gte: 27,
  Add: 28,
  Sub: 29,
  Mul: 30,
  Quo: 31,
  Rem: 32,
  And: 33,
  Or: 34,

  // Keywords. `if`, `contains`, `in` and `every` are keywords in v1, and in v0 only when imported.
  Package: 40,
  Import: 41,
  As: 42,
  Default: 43,
  Else: 44,
  Not: 45,
  Some: 46,
  With: 47,
  Null: 48,
  True: 49,
  False: 50,
  If: 51,
  Contains: 52,
  In: 53,
  Every: 54,
} as const

/** A token kind. */
export type TokenKind = (typeof T)[keyof typeof T]

/** Words that lex as keywords. */
export const KEYWORDS: ReadonlyMap<string, TokenKind> = new Map<string, TokenKind>([
  ['package', T.Package],
  ['import', T.Import],
  ['as', T.As],
  ['default', T.Default],
  ['else', T.Else],
  ['not', T.Not],
  ['some', T.Some],
  ['with', T.With],
  ['null', T.Null],
  ['true', T.True],
  ['false', T.False],
  ['if', T.If],
  ['contains', T.Contains],
  ['in', T.In],
  ['every', T.Every],
])

/** Keywords that v0 modules only have after `import future.keywords...` or `import rego.v1`. */
export const FUTURE_KEYWORDS: ReadonlyMap<string, TokenKind> = new Map<string, TokenKind>([
  ['if', T.If],
  ['contains', T.Contains],
  ['in', T.In],
  ['every', T.Every],
])

/**
 * Future keywords of OPA 1.x beyond the v1 four: `not` (OPA 1.17), a keyword already whose meaning
 * the import changes, and the infix `and` / `or` (OPA 1.20), which stay identifiers in term
 * position (the `and`/`or` builtins are still called by name) and read as keywords only between
 * two operands of a literal once imported.
 */
export const LATER_FUTURE_KEYWORDS: ReadonlySet<string> = new Set(['and', 'not', 'or'])

/** True for keyword kinds. */
export function isKeywordKind(kind: TokenKind): boolean {
  return kind >= T.Package
}

/** The builtin name OPA uses for each infix operator token. */
export const OPERATOR_BUILTINS: Readonly<Record<number, string>> = {
  [T.Unify]: 'eq',
  [T.Assign]: 'assign',
  [T.Equal]: 'equal',
  [T.Neq]: 'neq',
  [T.Lt]: 'lt',
  [T.Lte]: 'lte',
  [T.Gt]: 'gt',
  [T.Gte]: 'gte',
  [T.Add]: 'plus',
  [T.Sub]: 'minus',
  [T.Mul]: 'mul',
  [T.Quo]: 'div',
  [T.Rem]: 'rem',
  [T.And]: 'and',
  [T.Or]: 'or',
}

/**
 * How a token kind is spelled in messages ("unexpected } token", "unexpected plus token"): OPA's
 * token names, operators by name rather than symbol.
 */
export const TOKEN_NAMES: Readonly<Record<number, string>> = {
  [T.EOF]: 'eof',
  [T.Illegal]: 'illegal',
  [T.Ident]: 'identifier',
  [T.Number]: 'number',
  [T.String]: 'string',
  [T.RawString]: 'string',
  [T.TemplatePart]: 'template-string-part',
  [T.TemplateEnd]: 'template-string-end',
  [T.RawTemplatePart]: 'template-string-part',
  [T.RawTemplateEnd]: 'template-string-end',
  [T.LBrace]: '{',
  [T.RBrace]: '}',
  [T.LBrack]: '[',
  [T.RBrack]: ']',
  [T.LParen]: '(',
  [T.RParen]: ')',
  [T.Dot]: '.',
  [T.Comma]: ',',
  [T.Semicolon]: ';',
  [T.Colon]: ':',
  ...OPERATOR_BUILTINS,
  ...Object.fromEntries([...KEYWORDS].map(([word, kind]) => [kind, word])),
}

/** Token flag: whitespace or a comment precedes the token. */
export const WS_BEFORE = 1
/** Token flag: a line break precedes the token. */
export const NL_BEFORE = 2
