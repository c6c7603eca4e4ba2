"""Context compaction for LLM agent loops, as ctxbench measures it.

Before every model call, a ``Compactor`` shrinks the oldest part of the history so the request
stays under a limit, without ever separating a tool call from its result: the same Rust library,
strategy strings, defaults and errors as the ``ctxbench`` command, for lists of message dicts in
OpenAI chat, Anthropic Messages or OpenAI Responses form.

    from ctxbench import Compactor
    compactor = Compactor("truncate:trigger=cold+drop", window=128_000, target=0.5)
    messages, report = compactor.compact(messages)   # before each model call

Adapters for LangChain, the OpenAI Agents SDK and Pydantic AI are in ``ctxbench.integrations``;
``CacheClock`` tells ``trigger=cold`` stages whether the provider's prompt cache has expired.
"""

# Only the public names are left in the namespace (a test holds `dir(ctxbench)` to `__all__`):
# modules are imported under private names.
import asyncio as _asyncio
import inspect as _inspect

from ._clock import CacheClock
from ._native import CompactReport, PairingError, __version__, check_pairing, count_tokens, strategies
from ._native import Compactor as _Compactor

__all__ = [
    "CacheClock",
    "CompactReport",
    "Compactor",
    "PairingError",
    "__version__",
    "check_pairing",
    "count_tokens",
    "strategies",
]


async def _awaited(awaitable):
    return await awaitable


def _in_this_thread(summarize):
    """`summarize` as a plain function: an awaitable it returns is run to its end here, on a loop
    of its own (there is none running in this thread)."""

    def call(request):
        reply = summarize(request)
        if not _inspect.isawaitable(reply):
            return reply
        try:
            _asyncio.get_running_loop()
        except RuntimeError:
            return _asyncio.run(_awaited(reply))
        if _inspect.iscoroutine(reply):
            reply.close()
        raise TypeError(
            "summarize is async and an event loop is running in this thread: "
            "use `await compactor.compact_async(...)` instead of `compactor.compact(...)`"
        )

    return call


class Compactor(_Compactor):
    """Compacts one conversation before each model call, as ctxbench measured it.

    ``Compactor(strategy, window, threshold=0.8, target=None, keep=2, reply_reserve=0,
    estimator="chars4", format="chat")``: ``strategy`` is a strategy string of the command line
    (``ctxbench strategies`` lists the stages, or ``ctxbench.strategies()``); the policy is the
    context window in tokens, the threshold (compact past this fraction of the window), the target
    (once compacting, work down to this fraction; default the threshold), the requests kept
    untouched at the end and the tokens reserved for the reply. ``estimator`` decides when:
    ``chars4``, ``chars4-py``, ``o200k`` or ``cl100k``. ``format``: ``chat``, ``anthropic`` or
    ``responses``. A wrong argument raises ``TypeError`` (its type) or ``ValueError`` (its
    value), naming it and saying what it takes.

    Keep one per conversation: it remembers which stages were not worth trying again until
    something new arrives.
    """

    def compact(self, messages, *, cache_cold=None, summarize=None, system=None, tools=None):
        """Compacts ``messages`` for the next model call; returns ``(messages, report)``.

        The input is never changed: messages left alone come back as your own objects, a
        rewritten tool result as a copy with its new content, a summary as a new message.
        ``cache_cold``: whether the provider's prompt cache has expired (a bool or a
        ``CacheClock``), for ``trigger=cold``. ``summarize``: a function (or async function)
        receiving the summary request as a dict (``system``, ``messages``, ``tools``, ``keep``,
        ``ratio``, ``span``, ``estimated_tokens``, ``limit``) and returning the summary's text,
        or None when the call failed. ``system``: Anthropic's ``system`` or Responses'
        ``instructions`` (in chat, the first message). ``tools``: the request's tool schemas.
        """
        if callable(summarize):
            summarize = _in_this_thread(summarize)
        return super().compact(messages, cache_cold=cache_cold, summarize=summarize, system=system, tools=tools)

    async def compact_async(self, messages, *, cache_cold=None, summarize=None, system=None, tools=None):
        """``compact`` for async code: runs in a worker thread, and an async ``summarize`` runs
        on the caller's event loop."""
        loop = _asyncio.get_running_loop()
        function = summarize  # None, or what the native compact refuses with the argument's name
        if callable(summarize):

            def function(request):
                reply = summarize(request)
                if _inspect.isawaitable(reply):
                    return _asyncio.run_coroutine_threadsafe(_awaited(reply), loop).result()
                return reply

        return await _asyncio.to_thread(
            super().compact, messages, cache_cold=cache_cold, summarize=function, system=system, tools=tools
        )

    def fresh(self):
        """A new compactor with the same settings (and none of this one's memory)."""
        return type(self)(
            self.strategy,
            self.window,
            threshold=self.threshold,
            target=self.target,
            keep=self.keep,
            reply_reserve=self.reply_reserve,
            estimator=self.estimator,
            format=self.format,
        )
