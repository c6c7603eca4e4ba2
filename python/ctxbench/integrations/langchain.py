"""ctxbench's compactor in a LangChain v1 agent.

    from langchain.agents import create_agent
    from ctxbench import CacheClock, Compactor
    from ctxbench.integrations.langchain import CtxbenchMiddleware

    agent = create_agent(
        model, tools, system_prompt=...,
        middleware=[CtxbenchMiddleware(Compactor("truncate:trigger=cold+drop", window=128_000, target=0.5),
                                       clock=CacheClock.for_price("gpt-5.4-mini"))],
    )

``CtxbenchMiddleware`` compacts the agent's state before each model call (``before_model``), as
ctxbench's own loop does: the compaction stays in the state, so the next call extends it and the
provider's cache keeps its prefix. It tells the clock of each model call (``wrap_model_call``)
and counts the system prompt of the last call. ``CtxbenchEdit`` is the same compactor as a
``ContextEdit`` for ``ContextEditingMiddleware(edits=[…])``, which edits a copy of the messages
for each call and keeps nothing: the edit carries its compaction from call to call itself
(``ctxbench.integrations.Session``).

Messages go to the compactor in OpenAI chat form (role, content, tool calls with their ids and
JSON arguments, tool results with their call's id) and come back as the agent's own objects: a
message left alone is the same object, a rewritten tool result a copy with its new content
(``model_copy``: ids, metadata and artifacts kept), a summary a new ``HumanMessage``.

Sources (checked 2026-12-06): the middleware hooks, ``before_model`` returning a state update
with ``RemoveMessage(id=REMOVE_ALL_MESSAGES)`` (as LangChain's ``SummarizationMiddleware`` does),
``wrap_model_call``, and the ``ContextEdit`` protocol ``apply(messages, *, count_tokens)``:
https://reference.langchain.com/python/langchain/agents/middleware/context_editing/ContextEdit,
https://docs.langchain.com/oss/python/langchain/middleware.
"""

from __future__ import annotations

import json
import uuid

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
    convert_to_messages,
)
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from . import Session

__all__ = ["CtxbenchEdit", "CtxbenchMiddleware", "compact_messages", "summarize_with", "to_chat"]

_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool", "developer": "developer"}


def _json(value):
    """A value as JSON data (what a message dict may hold)."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


def _content(content):
    if isinstance(content, str) or content is None:
        return content
    return [part if isinstance(part, dict) else {"type": "text", "text": str(part)} for part in _json(content)]


def to_chat(message: BaseMessage) -> dict:
    """A LangChain message in OpenAI chat form, as the compactor reads it."""
    if isinstance(message, ChatMessage):
        role = _ROLES.get(message.role, message.role)
    else:
        role = _ROLES.get(message.type, "user")
    out = {"role": role, "content": _content(message.content)}
    if isinstance(message, AIMessage) and message.tool_calls:
        if out["content"] == "":
            out["content"] = None
        out["tool_calls"] = [
            {
                "id": call["id"],
                "type": "function",
                "function": {"name": call["name"], "arguments": json.dumps(call["args"], ensure_ascii=False)},
            }
            for call in message.tool_calls
        ]
    if isinstance(message, ToolMessage):
        out["tool_call_id"] = message.tool_call_id
        if message.name:
            out["name"] = message.name
    return out


def _step(compactor, messages, *, system=None, **kwargs):
    """Compacts LangChain messages: (the messages to send, the report)."""
    wire = [to_chat(m) for m in messages]
    head = [to_chat(system)] if system is not None else []
    kept, report = compactor.compact(head + wire, **kwargs)
    return _back(kept, report, messages, wire, len(head)), report


async def _astep(compactor, messages, *, system=None, **kwargs):
    wire = [to_chat(m) for m in messages]
    head = [to_chat(system)] if system is not None else []
    kept, report = await compactor.compact_async(head + wire, **kwargs)
    return _back(kept, report, messages, wire, len(head)), report


def _back(kept, report, messages, wire, skip):
    out = []
    for item, source in zip(kept, report.sources):
        if source is None:
            out.append(HumanMessage(content=item["content"], id=str(uuid.uuid4())))
            continue
        if source < skip:
            continue
        original = messages[source - skip]
        if item is wire[source - skip]:
            out.append(original)
        else:
            out.append(original.model_copy(update={"content": item["content"]}))
    return out


def _system_message(system):
    if system is None or isinstance(system, SystemMessage):
        return system
    return SystemMessage(content=system)


def compact_messages(compactor, messages, **kwargs):
    """Compacts a list of LangChain messages once: ``(messages, report)``; ``system`` (a
    ``SystemMessage``) is counted but not returned; the other keywords are
    ``Compactor.compact``'s."""
    return _step(compactor, messages, **kwargs)


def summarize_with(model):
    """A ``summarize`` function that asks a LangChain chat model for the summary (``ainvoke`` when
    the compaction runs async)."""

    def request_messages(request):
        head = [SystemMessage(content=request["system"])] if request["system"] else []
        return head + convert_to_messages(request["messages"])

    async def summarize(request):
        reply = await model.ainvoke(request_messages(request))
        return reply.text or None

    return summarize


class CtxbenchMiddleware(AgentMiddleware):
    """Compacts the agent's messages before each model call, in its state.

    ``compactor``: a ``ctxbench.Compactor`` (one per agent run or thread); ``clock``: a
    ``CacheClock`` told of each model call, for ``trigger=cold``; ``summarize``: what writes
    summaries for the ``summarize`` stage (``summarize_with(model)``); ``system``: the agent's
    system prompt (a str or ``SystemMessage``), counted before the first call shows it.
    ``reports`` lists every compaction's ``CompactReport``.
    """

    def __init__(self, compactor, *, clock=None, summarize=None, system=None):
        super().__init__()
        self.compactor = compactor
        self.clock = clock
        self.summarize = summarize
        self.reports = []
        self._system = _system_message(system)

    def _update(self, kept, report):
        self.reports.append(report)
        if not report.changed:
            return None
        for message in kept:
            if message.id is None:
                message.id = str(uuid.uuid4())
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *kept]}

    def _how(self):
        return {"system": self._system, "cache_cold": self.clock, "summarize": self.summarize}

    def before_model(self, state, runtime):
        return self._update(*_step(self.compactor, state["messages"], **self._how()))

    async def abefore_model(self, state, runtime):
        return self._update(*await _astep(self.compactor, state["messages"], **self._how()))

    def _called(self, request, response):
        """A model call ended: its system prompt is the one to count, and the cache holds it."""
        self._system = request.system_message or self._system
        if self.clock is not None:
            self.clock.called()
        return response

    def wrap_model_call(self, request, handler):
        return self._called(request, handler(request))

    async def awrap_model_call(self, request, handler):
        return self._called(request, await handler(request))


class CtxbenchEdit:
    """The compactor as a ``ContextEdit`` (``ContextEditingMiddleware(edits=[CtxbenchEdit(…)])``).
    The middleware edits a fresh copy of the messages for each call; the edit carries its
    compaction over from the last call (``Session``), so the result is what ``CtxbenchMiddleware``
    would send. ``count_tokens`` is not used: the compactor counts with its own estimator. A
    ``ContextEdit`` is not shown the system prompt: give it as ``system`` to count it. The clock is
    told at each call's start (this hook sees no call end)."""

    def __init__(self, compactor, *, clock=None, summarize=None, system=None):
        self.session = Session(compactor, step=_step, astep=_astep)
        self.clock = clock
        self.summarize = summarize
        self.system = _system_message(system)

    @property
    def reports(self):
        return self.session.reports

    def apply(self, messages, *, count_tokens=None):
        kept, _ = self.session.compact(messages, system=self.system, cache_cold=self.clock, summarize=self.summarize)
        messages[:] = kept
        if self.clock is not None:
            self.clock.called()
