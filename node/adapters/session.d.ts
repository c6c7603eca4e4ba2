/** What a compactor's call returns, as the adapters use it (the package's `Compactor`). */
export interface Compacted<T = any> {
  messages: T[];
  report: any;
}

/** What an adapter takes: the package's `Compactor` (or anything with its `compactAsync`). */
export interface CompactorLike {
  compact(messages: any[], options?: object): Compacted;
  compactAsync(messages: any[], options?: object): Promise<Compacted>;
  fresh?(): CompactorLike;
  settings?(): string;
  readonly format?: string;
}

/** What an adapter takes as its clock: the package's `CacheClock`. */
export interface ClockLike {
  cold(): boolean;
  called(...args: any[]): void;
}

/**
 * One conversation's compaction across the calls of a hook handed the whole history each time:
 * while the history only grows, the compactor is fed what was sent last time plus what arrived
 * since; otherwise it starts over, with a fresh compactor.
 */
export declare class Session<T = any> {
  constructor(compactor: CompactorLike, step?: (compactor: CompactorLike, items: T[], options?: object) => Compacted<T> | Promise<Compacted<T>>);
  compactor: CompactorLike;
  /** Every call's report. */
  readonly reports: any[];
  /** Compacts the whole history `items` as a continuation of the last call. */
  compact(items: T[], options?: object): Promise<Compacted<T>>;
}

export declare function same(a: unknown, b: unknown): boolean;
export declare function checkCompactor(compactor: unknown, name: string, format?: "chat" | "anthropic" | "responses"): void;
export declare function checkArray(value: unknown, name: string): void;
export declare function checkClock(clock: unknown, name: string): void;
export declare function compactOptions(options?: { clock?: ClockLike; summarize?: Function; system?: unknown; tools?: unknown }): object;
