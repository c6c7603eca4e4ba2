// Types of ./ai-sdk.js. The SDK's own types (`ai`'s ModelMessage, PrepareStepFunction) are not
// imported, so that the package does not need `ai` to type-check; the shapes are theirs.
import type { ClockLike, CompactorLike } from "./session";

/** An AI SDK `ModelMessage` (system, user, assistant or tool), as `ai` defines it. */
export type ModelMessage = { role: "system" | "user" | "assistant" | "tool"; content: any; providerOptions?: Record<string, any> };

/** A chat message as the compactor reads it (OpenAI chat form). */
export type ChatMessage = { role: string; content: any; tool_calls?: any[]; tool_call_id?: string; name?: string };

export interface CompactingOptions {
  /** A CacheClock, told of each step's model call as the step starts. */
  clock?: ClockLike;
  /** What writes summaries for the summarize stage (sync or async). */
  summarize?: (request: any) => string | null | undefined | Promise<string | null | undefined>;
  /** The call's system prompt, counted (the SDK does not show it to `prepareStep`). */
  system?: string | { role: "system"; content: string };
  /** The tools' chat definitions, counted. */
  tools?: any[];
}

/** A `prepareStep` for `generateText` / `streamText` / `ToolLoopAgent`. */
export interface CompactingPrepareStep {
  (options: { messages: ModelMessage[]; stepNumber: number; steps: any[]; model?: unknown; experimental_context?: unknown }): Promise<{ messages: ModelMessage[] }>;
  /** Every step's report. */
  readonly reports: any[];
}

/** A `prepareStep` compacting each step's messages with `compactor` (format chat). */
export declare function compactingPrepareStep(compactor: CompactorLike, options?: CompactingOptions): CompactingPrepareStep;

/** Compacts AI SDK messages once; `system` is counted, not returned. */
export declare function compactMessages(
  compactor: CompactorLike,
  messages: ModelMessage[],
  options?: { system?: string | { role: "system"; content: string }; cacheCold?: boolean | ClockLike; summarize?: Function; tools?: any[] },
): Promise<{ messages: ModelMessage[]; report: any }>;

/** The SDK's messages in chat form, and where each came from: [message index, part index or -1]. */
export declare function toChat(messages: ModelMessage[]): { wire: ChatMessage[]; where: Array<[number, number]> };
