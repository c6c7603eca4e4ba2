// Types of the npm package `ctxbench` (index.js): every name it exports, with its options. Messages
// are plain objects in the form `format` names (OpenAI chat, Anthropic Messages or OpenAI
// Responses); tool schemas plain objects. The guide is docs/node.md.

/** A message, a tool schema, a system prompt: JSON values. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json | undefined }
export type Message = { [key: string]: Json | undefined }

/** The messages' form. */
export type Format = 'chat' | 'anthropic' | 'responses'

/** The estimators (`Compactor`'s `estimator`) and tokenizers (`countTokens`'s `tokenizer`). */
export type Counter = 'chars4' | 'chars4-py' | 'o200k' | 'cl100k'

/** A history that breaks the pairing rule; the message says which message (`messages[2]: …`). */
export declare class PairingError extends Error {
  readonly name: 'PairingError'
}

/** `Compactor`'s settings: `window` is required. */
export interface CompactorOptions {
  /** The context window, in tokens: a whole number greater than 0. */
  window: number
  /** Compact past this fraction of the window (default 0.8). */
  threshold?: number
  /** Once compacting, work down to this fraction of the window (default: the threshold). */
  target?: number | null
  /** Requests at the end never touched (default 2). */
  keep?: number
  /** Tokens kept free for the reply (default 0). */
  replyReserve?: number
  /** What decides when to compact (default `chars4`). */
  estimator?: Counter
  /** The messages' form (default `chat`). */
  format?: Format
}

/** What `summarize` receives: the Python package's summary request, camelCased. */
export interface SummaryRequest {
  /** The summarizer's system prompt. */
  system: string | null
  /** The span to summarize, as chat messages. */
  messages: Message[]
  /** The tool schemas (none, or the agent's when aligned). */
  tools: Json[]
  /** The kinds of fact the summary should keep (`id`, `number`, `decision`, …). */
  keep: string[]
  /** The summary's size asked for, as a fraction of the span. */
  ratio: number
  /** Where the span is in `messages` (`[start, end)`), or null. */
  span: [number, number] | null
  /** The estimator's count of this request, in tokens. */
  estimatedTokens: number
  /** The limit of the compaction that asks. */
  limit: number
  /** 0 for the first call; each retry of a failed call counts one up. */
  attempt: number
}

/** Anything with `cold()`, such as a `CacheClock`. */
export interface Clock {
  cold(): boolean
}

/** `compact`'s options. */
export interface CompactOptions<Summary> {
  /** Whether the provider's prompt cache has expired: a boolean or a `CacheClock`. */
  cacheCold?: boolean | Clock | null
  /** Writes summaries for the `summarize` stage: the summary's text, or null when the call failed. */
  summarize?: ((request: SummaryRequest) => Summary) | null
  /** Anthropic's top-level `system`, Responses' `instructions` (in chat: the first message). */
  system?: Json
  /** The request's tool schemas (the exact estimators count them). */
  tools?: Json[] | null
}

/** What one stage did. */
export interface StageReport {
  stage: string
  ran: boolean
  guarded: boolean
  tokensBefore: number
  tokensAfter: number
}

/** What one compaction did: the Python package's `CompactReport`, camelCased. */
export interface CompactReport {
  /** The strategy's canonical name. */
  strategy: string
  /** The estimator that decided. */
  estimator: string
  /** The estimate of the request before, in tokens. */
  tokensBefore: number
  /** The estimate after. */
  tokensAfter: number
  /** The limit the estimate is held under (the window × threshold, less the reply reserve). */
  limit: number
  /** The context window. */
  window: number
  /** Messages before and after (the system prompt counted). */
  messagesBefore: number
  messagesAfter: number
  /** Tool results replaced by a truncation note. */
  truncated: number
  /** Tool results replaced by a placeholder (`mask`, `clear-tool-uses`). */
  masked: number
  /** Messages removed (by `drop`, `window`, a summary's span). */
  dropped: number
  /** Summary calls made. */
  summaryCalls: number
  /** The pipeline did all it could and the estimate is still over the limit. */
  cannotFit: boolean
  /** The history changed. */
  changed: boolean
  /** Each stage: whether it ran, whether its loop guard held it back, the estimate before and after. */
  stages: StageReport[]
  /** For chat: the input message each returned one came from (null for a summary); null otherwise. */
  sources: (number | null)[] | null
}

/** What `compact` returns. */
export interface Compacted<M> {
  messages: M[]
  report: CompactReport
}

/** Compacts one conversation before each model call, as ctxbench measured it. */
export declare class Compactor {
  /** `strategy`: a strategy string of the command line (`strategies()` lists the stages). */
  constructor(strategy: string, options: CompactorOptions)
  /** The strategy's canonical name (every parameter spelt). */
  readonly strategy: string
  readonly window: number
  readonly threshold: number
  /** Undefined: the threshold. */
  readonly target: number | undefined
  readonly keep: number
  readonly replyReserve: number
  readonly estimator: Counter
  readonly format: Format
  /** The limit the estimate is held under, in tokens. */
  readonly limit: number
  /** A new compactor with the same settings (and none of this one's memory). */
  fresh(): this
  /** The line that constructs it: `new Compactor("drop", { window: 8000 })`. */
  toString(): string
  /** Compacts `messages` for the next model call; the input is never changed. */
  compact<M extends Message>(messages: Iterable<M>, options?: CompactOptions<string | null | undefined>): Compacted<M>
  /** `compact` off the JavaScript thread; `summarize` may return a promise. */
  compactAsync<M extends Message>(
    messages: Iterable<M>,
    options?: CompactOptions<string | null | undefined | PromiseLike<string | null | undefined>>,
  ): Promise<Compacted<M>>
}

/** `CacheClock`'s settings. */
export interface CacheClockOptions {
  /** The cache's lifetime in seconds; null for no cache. */
  ttlS: number | null
  /** The time in seconds (default: wall-clock, `Date.now() / 1000`). */
  now?: () => number
}

/** The provider's prompt cache lifetime, and when the last model call ended. */
export declare class CacheClock implements Clock {
  constructor(options: CacheClockOptions)
  /** The clock of the cache that model `name` of ctxbench's price table implies. */
  static forPrice(name: string, options?: { now?: () => number }): CacheClock
  readonly ttlS: number | null
  readonly now: () => number
  /** When the last model call ended (seconds), or null before any. */
  lastCall: number | null
  /** A model call ended (at `at` seconds, or now). */
  called(at?: number): void
  /** Whether a call at `at` (or now) would find the cache expired. */
  cold(at?: number): boolean
  /** `CacheClock { ttlS: 300, lastCall: null }`. */
  toString(): string
}

/** The tokens a request of these messages costs, counted as the library counts it. */
export declare function countTokens(
  messages: Iterable<Message>,
  options?: { tokenizer?: Counter; format?: Format; tools?: Json[] | null; system?: Json },
): number

/** Throws a `PairingError` naming the message; returns the calls still waiting for their results. */
export declare function checkPairing(messages: Iterable<Message>, options?: { format?: Format }): number

/** The strategies' help: every stage, its parameters and their defaults. */
export declare function strategies(): string

/** The package's version. */
export declare const version: string
