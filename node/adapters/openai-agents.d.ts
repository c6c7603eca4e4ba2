// Types of ./openai-agents.js. `@openai/agents`'s own types are not imported, so that the
// package does not need it to type-check; the shapes are `@openai/agents-core`'s
// (CallModelInputFilter, CallModelInputFilterArgs, ModelInputData, AgentInputItem).
import type { ClockLike, CompactorLike } from "./session";

/** An `AgentInputItem` of the SDK (a message, a function call or result, a reasoning item, …). */
export type AgentInputItem = { type?: string; role?: string; [key: string]: any };

/** The SDK's `ModelInputData` (its items the SDK's `AgentInputItem`). */
export interface ModelInputData<Item = AgentInputItem> {
  input: Item[];
  instructions?: string;
}

/** The SDK's `CallModelInputFilterArgs`. */
export interface CallModelInputFilterArgs<Item = AgentInputItem, TContext = unknown> {
  modelData: ModelInputData<Item>;
  agent: unknown;
  context: TContext | undefined;
}

/**
 * A `callModelInputFilter` for `run(agent, input, {callModelInputFilter})` or a `Runner`: what
 * `@openai/agents`' `CallModelInputFilter` takes (the items it returns are of the type given).
 */
export interface CompactingInputFilter {
  <Item extends object>(args: CallModelInputFilterArgs<Item, any>): Promise<ModelInputData<Item>>;
  /** Every call's report. */
  readonly reports: any[];
}

/** A `callModelInputFilter` compacting with `compactor` (format "responses"). */
export declare function inputFilter(
  compactor: CompactorLike,
  options?: { clock?: ClockLike; summarize?: (request: any) => string | null | undefined | Promise<string | null | undefined> },
): CompactingInputFilter;

/** Compacts the SDK's input items once; `system` is the instructions, counted. */
export declare function compactItems(
  compactor: CompactorLike,
  input: AgentInputItem[],
  options?: { system?: string; cacheCold?: boolean | ClockLike; summarize?: Function },
): Promise<{ messages: AgentInputItem[]; report: any }>;

/** An SDK item in the Responses API's form (the item itself when it already is). */
export declare function toResponses(item: AgentInputItem): Record<string, any>;
