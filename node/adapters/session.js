"use strict";
/**
 * What the adapters share: one conversation's compaction carried across the calls of a hook that
 * is handed the whole history each time (`Session`, as the Python package's
 * `ctxbench.integrations.Session`), and the checks of what an adapter is given.
 *
 * While the history only grows, the compactor is fed what was sent last time plus the items that
 * arrived since, so a compaction is made once and its prefix stays put for the provider's cache,
 * as in ctxbench's own loop (where its verdicts were measured). When the history changed
 * otherwise (a new conversation, an edit), it starts over from the whole history with a fresh
 * compactor.
 */

/** Two items are the same when they are one object or equal as JSON. */
function same(a, b) {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** Throws a TypeError naming `name` unless `compactor` is a ctxbench Compactor. */
function checkCompactor(compactor, name, format) {
  if (compactor === null || typeof compactor !== "object" || typeof compactor.compact !== "function") {
    throw new TypeError(`${name}: expected a ctxbench Compactor (new Compactor(strategy, {window, …})), got ${describe(compactor)}`);
  }
  const has = formatOf(compactor);
  if (format && has !== undefined && has !== format) {
    throw new TypeError(`${name}: ${format === "responses" ? "the input is a list of Responses items" : "the messages are read in chat form"}: make the compactor with format: "${format}" (it has format: "${has}")`);
  }
}

/** The compactor's format, when it says. */
function formatOf(compactor) {
  if (typeof compactor.format === "string") return compactor.format;
  if (typeof compactor.settings === "function") {
    try {
      const settings = compactor.settings();
      return (typeof settings === "string" ? JSON.parse(settings) : settings).format;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Throws a TypeError naming `name` unless `value` is an array. */
function checkArray(value, name) {
  if (!Array.isArray(value)) throw new TypeError(`${name}: expected an array, got ${describe(value)}`);
}

/** Throws a TypeError unless `clock` is missing or has `cold()` and `called()`. */
function checkClock(clock, name) {
  if (clock != null && (typeof clock.cold !== "function" || typeof clock.called !== "function")) {
    throw new TypeError(`${name}: expected a CacheClock (CacheClock.forPrice("gpt-5.4-mini")), got ${describe(clock)}`);
  }
}

function describe(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return `an object with keys ${JSON.stringify(Object.keys(value).slice(0, 5))}`;
  return `${typeof value} ${JSON.stringify(value)}`;
}

/** The options of `Compactor.compact` an adapter passes on (only those given). */
function compactOptions({ clock, summarize, system, tools } = {}) {
  const options = {};
  if (clock != null) options.cacheCold = clock;
  if (summarize != null) options.summarize = summarize;
  if (system != null) options.system = system;
  if (tools != null) options.tools = tools;
  return options;
}

class Session {
  /**
   * `step(compactor, items, options)` compacts a list of the framework's items and returns
   * `{messages, report}` (or a promise of it); by default `compactor.compactAsync` itself.
   */
  constructor(compactor, step) {
    this.compactor = compactor;
    this.reports = [];
    this._step = step || ((c, items, options) => c.compactAsync(items, options));
    this._seen = [];
    this._sent = null;
  }

  _working(items) {
    const n = this._seen.length;
    if (this._sent !== null && items.length >= n && this._seen.every((seen, i) => same(items[i], seen))) {
      return this._sent.concat(items.slice(n));
    }
    if (this._sent !== null && typeof this.compactor.fresh === "function") {
      this.compactor = this.compactor.fresh();
    }
    return Array.from(items);
  }

  /** Compacts the whole history `items` as a continuation of the last call: `{messages, report}`. */
  async compact(items, options) {
    const done = await this._step(this.compactor, this._working(items), options);
    this._seen = Array.from(items);
    this._sent = Array.from(done.messages);
    this.reports.push(done.report);
    return done;
  }
}

module.exports = { Session, same, checkCompactor, checkArray, checkClock, compactOptions };
