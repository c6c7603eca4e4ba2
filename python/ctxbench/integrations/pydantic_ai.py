"""ctxbench's compactor in a Pydantic AI agent.

    from pydantic_ai import Agent
    from ctxbench import CacheClock, Compactor
    from ctxbench.integrations.pydantic_ai import history_processor

    processor = history_processor(Compactor("truncate:trigger=cold+drop", window=128_000, target=0.5),
                                  clock=CacheClock.for_price("gpt-5.4-mini"))
    agent = Agent(model, capabilities=[ProcessHistory(processor)])   # Pydantic AI 2
    agent = Agent(model, history_processors=[processor])             # Pydantic AI 1
    agent = Agent(model, **processing(processor))                    # either

Pydantic AI runs history processors before each model request and keeps what they return as the
run's history, so a compaction stays, as in ctxbench's own loop. Messages go to the compactor in
OpenAI chat form: a ``ModelResponse`` is one assistant message (its text and thinking, its tool
calls with their ids and JSON arguments); a ``ModelRequest`` is its tool returns and retry
prompts as tool results (first, as chat needs them), then its system and user prompts. They come
back as the run's own objects: a message left alone is the same object, a request some of whose
parts were dropped or rewritten a copy with those parts (``dataclasses.replace``: timestamps,
ids, metadata kept), a summary a new ``ModelRequest`` with one ``UserPromptPart``.

The clock is told when each model response arrived (its ``timestamp``), so ``trigger=cold``
knows what the provider's cache knows.

Sources (checked 2026-12-06): history processors, functions from a list of ``ModelMessage`` to a
list, sync or async, ``Agent(history_processors=[…])`` in version 1,
https://ai.pydantic.dev/message-history/, and ``capabilities=[ProcessHistory(…)]`` in version 2
(pydantic-ai-slim 2.78's ``capabilities/process_history.py``, which keeps the processed list as the
run's history); the message and part classes, https://ai.pydantic.dev/api/messages/.
"""

from __future__ import annotations

import dataclasses
import json

from pydantic_ai.messages import (
    BaseToolCallPart,
    BaseToolReturnPart,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    UserPromptPart,
)

__all__ = ["history_processor", "processing", "to_chat"]


def _user_content(content):
    if isinstance(content, str):
        return content
    parts = []
    for item in content:
        if isinstance(item, str):
            parts.append({"type": "text", "text": item})
        else:
            parts.append({"type": getattr(item, "kind", type(item).__name__)})
    return parts


def _text(value):
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def to_chat(messages):
    """The run's messages in OpenAI chat form, and where each came from: ``(message index, part
    index)``, the part index None for a response."""
    wire, where = [], []
    for m, message in enumerate(messages):
        if isinstance(message, ModelResponse):
            text = "".join(p.content for p in message.parts if isinstance(p, (TextPart, ThinkingPart)))
            calls = [
                p
                for p in message.parts
                if isinstance(p, BaseToolCallPart) and not p.part_kind.startswith("builtin")
            ]
            item = {"role": "assistant", "content": text or (None if calls else "")}
            if calls:
                item["tool_calls"] = [
                    {
                        "id": p.tool_call_id,
                        "type": "function",
                        "function": {"name": p.tool_name, "arguments": p.args_as_json_str()},
                    }
                    for p in calls
                ]
            wire.append(item)
            where.append((m, None))
            continue
        results, others = [], []
        for p, part in enumerate(message.parts):
            if isinstance(part, BaseToolReturnPart):
                results.append((p, {"role": "tool", "tool_call_id": part.tool_call_id, "name": part.tool_name,
                                    "content": part.model_response_str()}))
            elif isinstance(part, RetryPromptPart) and part.tool_name is not None:
                results.append((p, {"role": "tool", "tool_call_id": part.tool_call_id, "name": part.tool_name,
                                    "content": part.model_response()}))
            elif isinstance(part, SystemPromptPart):
                others.append((p, {"role": "system", "content": part.content}))
            elif isinstance(part, UserPromptPart):
                others.append((p, {"role": "user", "content": _user_content(part.content)}))
            else:
                response = getattr(part, "model_response", None)
                others.append((p, {"role": "user", "content": _text(response() if response else repr(part))}))
        for p, item in results + others:
            wire.append(item)
            where.append((m, p))
    return wire, where


def _back(messages, wire, where, kept, report):
    out = []
    pending = None  # (message index, [(part index, part)])

    def flush():
        if pending is None:
            return
        m, parts = pending
        original = messages[m]
        parts.sort(key=lambda pair: pair[0])
        chosen = [part for _, part in parts]
        if len(chosen) == len(original.parts) and all(a is b for a, b in zip(chosen, original.parts)):
            out.append(original)
        else:
            out.append(dataclasses.replace(original, parts=chosen))

    for item, source in zip(kept, report.sources):
        if source is None:
            flush()
            pending = None
            out.append(ModelRequest(parts=[UserPromptPart(content=item["content"])]))
            continue
        m, p = where[source]
        if p is None:
            flush()
            pending = None
            out.append(messages[m])
            continue
        part = messages[m].parts[p]
        if item is not wire[source]:
            part = dataclasses.replace(part, content=item["content"])
        if pending is not None and pending[0] == m:
            pending[1].append((p, part))
        else:
            flush()
            pending = (m, [(p, part)])
    flush()
    return out


def history_processor(compactor, *, clock=None, summarize=None):
    """A history processor compacting with ``compactor`` (format ``chat``); its ``reports`` list
    every call's ``CompactReport``."""
    if compactor.format != "chat":
        raise ValueError(f'Pydantic AI\'s messages are read in chat form: make the compactor with format="chat" (it has {compactor.format!r})')

    async def process(messages: list) -> list:
        if clock is not None:
            last = next((m for m in reversed(messages) if isinstance(m, ModelResponse)), None)
            if last is not None and last.timestamp is not None:
                clock.called(at=last.timestamp.timestamp())
        wire, where = to_chat(messages)
        kept, report = await compactor.compact_async(wire, cache_cold=clock, summarize=summarize)
        process.reports.append(report)
        if not report.changed:
            return messages
        return _back(messages, wire, where, kept, report)

    process.reports = []
    return process


def processing(processor):
    """The ``Agent`` keywords that install ``processor``: ``capabilities=[ProcessHistory(…)]`` on
    Pydantic AI 2, ``history_processors=[…]`` on version 1."""
    try:
        from pydantic_ai.capabilities import ProcessHistory
    except ImportError:
        return {"history_processors": [processor]}
    return {"capabilities": [ProcessHistory(processor)]}
