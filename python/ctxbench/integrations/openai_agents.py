"""ctxbench's compactor in an OpenAI Agents SDK run.

    from agents import RunConfig, Runner
    from ctxbench import CacheClock, Compactor
    from ctxbench.integrations.openai_agents import input_filter

    compact = input_filter(Compactor("truncate:trigger=cold+drop", window=128_000, target=0.5),
                           clock=CacheClock.for_price("gpt-5.4-mini"))
    result = await Runner.run(agent, items, run_config=RunConfig(call_model_input_filter=compact),
                              hooks=compact.hooks)

The SDK hands the filter the whole input before every model call (Responses input items) and the
agent's instructions, and sends what it returns; it keeps nothing of it. The filter carries its
compaction from call to call (``ctxbench.integrations.Session``), so what it sends is what
ctxbench's own loop would: a compaction made once, its prefix kept for the provider's cache. The
items go to the compactor as the dicts they are (format ``responses``): reasoning items stay with
their calls, and every field the compactor does not touch comes back as it was.

``compact.hooks`` (``RunHooks``) tells the clock when each model call ends: pass them to
``Runner.run``, or the clock never learns of a call (and never says cold).

Sources (checked 2026-12-06): ``RunConfig.call_model_input_filter``, ``CallModelData``
(``model_data``, ``agent``, ``context``) and ``ModelInputData`` (``input``, ``instructions``),
https://openai.github.io/openai-agents-python/ref/run/; ``RunHooks.on_llm_end``,
https://openai.github.io/openai-agents-python/ref/lifecycle/.
"""

from __future__ import annotations

from agents import RunHooks
from agents.run import ModelInputData

from . import Session

__all__ = ["CompactingFilter", "input_filter"]


class _ClockHooks(RunHooks):
    def __init__(self, clock):
        self.clock = clock

    async def on_llm_end(self, context, agent, response):
        if self.clock is not None:
            self.clock.called()


class CompactingFilter:
    """A ``call_model_input_filter`` that compacts the input with ``compactor`` (its ``format``
    must be ``responses``, as the SDK's input is). ``reports`` lists every call's report."""

    def __init__(self, compactor, *, clock=None, summarize=None):
        if compactor.format != "responses":
            raise ValueError(
                f"the Agents SDK's input is a list of Responses items: make the compactor with "
                f'format="responses" (it has format={compactor.format!r})'
            )
        self.session = Session(compactor)
        self.clock = clock
        self.summarize = summarize
        self.hooks = _ClockHooks(clock)

    @property
    def reports(self):
        return self.session.reports

    async def __call__(self, data):
        model = data.model_data
        kept, _ = await self.session.compact_async(
            list(model.input),
            system=model.instructions,
            cache_cold=self.clock,
            summarize=self.summarize,
        )
        return ModelInputData(input=kept, instructions=model.instructions)


def input_filter(compactor, *, clock=None, summarize=None):
    """A ``call_model_input_filter`` compacting with ``compactor``; pass ``hooks=filter.hooks`` to
    ``Runner.run`` so the clock learns when each call ends."""
    return CompactingFilter(compactor, clock=clock, summarize=summarize)
