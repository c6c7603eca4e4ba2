"""The compactor in the frameworks' own hooks, each converting the framework's messages to the wire
form and back without loss (ids, reasoning, anything unknown kept: a message the compaction left
alone comes back as the framework's own object).

- ``ctxbench.integrations.langchain``: ``CtxbenchMiddleware`` for ``create_agent(middleware=[…])``,
  and ``CtxbenchEdit`` for ``ContextEditingMiddleware(edits=[…])``;
- ``ctxbench.integrations.openai_agents``: ``input_filter`` for
  ``RunConfig(call_model_input_filter=…)``;
- ``ctxbench.integrations.pydantic_ai``: ``history_processor`` for
  ``Agent(history_processors=[…])``.

Each keeps the compaction from one model call to the next, as ctxbench's own loop does (and as
its verdicts were measured): a hook that sees the whole history every call is fed what it sent
last time plus what arrived since (``Session``), so a compaction is made once and its prefix
stays put for the provider's cache. Each tells a ``CacheClock`` of the model calls it sees.
"""

__all__ = ["Session"]


def _same(a, b):
    return a is b or a == b


class Session:
    """One conversation's compaction across the calls of a hook that is given the whole history
    each time. While the history only grows, the compactor sees what was sent last time and the
    items that arrived since; when it changed otherwise (a new conversation, an edit), it starts
    over from the whole history with a fresh compactor.

    ``step(compactor, items, **kwargs)`` compacts a list of the framework's items and returns
    ``(items, report)`` (``Compactor.compact`` itself for lists of dicts); ``astep`` is its async
    twin. ``reports`` lists every call's ``CompactReport``.
    """

    def __init__(self, compactor, step=None, astep=None):
        self.compactor = compactor
        self.reports = []
        self._step = step or (lambda compactor, items, **kw: compactor.compact(items, **kw))
        self._astep = astep or (lambda compactor, items, **kw: compactor.compact_async(items, **kw))
        self._seen = []
        self._sent = None

    def _working(self, items):
        n = len(self._seen)
        if self._sent is not None and len(items) >= n and all(_same(a, b) for a, b in zip(items, self._seen)):
            return self._sent + list(items[n:])
        if self._sent is not None:
            self.compactor = self.compactor.fresh()
        return list(items)

    def _keep(self, items, kept, report):
        self._seen = list(items)
        self._sent = list(kept)
        self.reports.append(report)
        return kept, report

    def compact(self, items, **kwargs):
        """Compacts the whole history ``items`` as a continuation of the last call."""
        kept, report = self._step(self.compactor, self._working(items), **kwargs)
        return self._keep(items, kept, report)

    async def compact_async(self, items, **kwargs):
        """``compact`` for async hooks."""
        kept, report = await self._astep(self.compactor, self._working(items), **kwargs)
        return self._keep(items, kept, report)
