// Types of ./langchain.js. LangChain's own types are not imported, so that the package does not
// need `langchain` to type-check; the middleware is `createMiddleware`'s (an `AgentMiddleware`),
// the messages `@langchain/core`'s `BaseMessage`.
import type { ClockLike, CompactorLike } from "./session";

/** A LangChain `BaseMessage` (only what the adapter reads). */
export type BaseMessage = { getType(): string; content: any; id?: string; [key: string]: any };

/** A chat message as the compactor reads it (OpenAI chat form). */
export type ChatMessage = { role: string; content: any; tool_calls?: any[]; tool_call_id?: string; name?: string };

export interface MiddlewareOptions {
  /** A CacheClock, told of each model call's end. */
  clock?: ClockLike;
  /** What writes summaries for the summarize stage (sync or async). */
  summarize?: (request: any) => string | null | undefined | Promise<string | null | undefined>;
  /** The agent's system prompt, counted before the first call shows it. */
  system?: string | BaseMessage;
}

/** The middleware: LangChain's `AgentMiddleware` (from `createMiddleware`), with its reports. */
export interface CtxbenchMiddleware {
  name: string;
  beforeModel: (state: { messages: BaseMessage[] }, runtime?: unknown) => Promise<{ messages: BaseMessage[] } | undefined>;
  wrapModelCall: (request: any, handler: (request: any) => any) => Promise<any>;
  /** Every compaction's report. */
  readonly reports: any[];
  [key: string | symbol]: any;
}

/** A middleware for `createAgent({middleware: […]})` compacting the agent's state before each model call. */
export declare function ctxbenchMiddleware(compactor: CompactorLike, options?: MiddlewareOptions): CtxbenchMiddleware;

/** Compacts LangChain messages once; `system` is counted, not returned. */
export declare function compactMessages(
  compactor: CompactorLike,
  messages: BaseMessage[],
  options?: { system?: string | BaseMessage; cacheCold?: boolean | ClockLike; summarize?: Function; tools?: any[] },
): Promise<{ messages: BaseMessage[]; report: any }>;

/** A LangChain message in OpenAI chat form. */
export declare function toChat(message: BaseMessage): ChatMessage;
