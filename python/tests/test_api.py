"""The package as a user meets it: what `Compactor.compact` returns and never changes, summaries
written by a function (sync or async), the cache clock, pairing errors that name the message,
errors in the user's words, the three formats, and the README's and the guide's snippets."""

import asyncio
import copy
import json
import re
import subprocess

import pytest
from conftest import REPO

import ctxbench
from ctxbench import CacheClock, Compactor, PairingError, check_pairing, count_tokens

ORDER = "Order 4471: front wheel Mavic Aksium 700c, shipped 2026-11-02. " * 40


def support_chat():
    return [
        {"role": "system", "content": "You are the support assistant of a bike shop."},
        {"role": "user", "content": "My order #4471 came with a bent front wheel."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_order", "arguments": '{"order":4471}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": ORDER},
        {"role": "assistant", "content": "Order 4471 shipped a Mavic Aksium 700c. I'm sorry!"},
        {"role": "user", "content": "Can I return it?"},
        {"role": "assistant", "content": "Yes, within 30 days."},
        {"role": "user", "content": "Then please start the return."},
    ]


def test_untouched_messages_are_the_callers_own_and_the_input_never_changes():
    messages = support_chat()
    before = copy.deepcopy(messages)
    kept, report = Compactor("truncate+drop", window=600).compact(messages)
    assert messages == before
    assert (report.limit, report.tokens_before, report.tokens_after) == (480, 767, 187)
    assert (report.truncated, report.dropped, report.changed, report.cannot_fit) == (1, 0, True, False)
    assert report.sources == list(range(8))
    assert all(kept[i] is messages[i] for i in range(8) if i != 3)
    assert kept[3] is not messages[3]
    assert kept[3]["content"].startswith("[Truncated to save context: 2520 chars. Preview: Order 4471")
    messages[3]["x-kept"] = {"any": ["field", 1, 2.5, True, None]}
    kept, _ = Compactor("truncate+drop", window=600).compact(messages)
    assert kept[3]["x-kept"] is messages[3]["x-kept"], "a rewritten message keeps its other fields"
    assert [s["stage"] for s in report.stages] == ["truncate:preview=150,trigger=threshold", "drop"]
    assert report.to_dict()["tokens_after"] == 187
    assert "767 -> 187 tokens" in repr(report)


def test_a_compactor_remembers_its_conversation():
    compactor = Compactor("drop", window=300)
    assert repr(compactor) == 'Compactor("drop", window=300)'
    made = Compactor("truncate:trigger=cold+drop", 6000, target=0.4, keep=3, estimator="o200k")
    assert repr(made) == 'Compactor("truncate:trigger=cold+drop", window=6000, target=0.4, keep=3, estimator="o200k")'
    assert (made.window, made.threshold, made.target, made.keep, made.estimator, made.limit) == (6000, 0.8, 0.4, 3, "o200k", 4800)
    assert made.strategy == "truncate:preview=150,trigger=cold+drop"
    fresh = made.fresh()
    assert type(fresh) is Compactor and repr(fresh) == repr(made)


def conversation(n):
    messages = []
    for k in range(1, n + 1):
        messages.append({"role": "user", "content": f"Where is order {k}? " + "Please check. " * 30})
        messages.append({"role": "assistant", "content": f"Order {k} shipped. " + "Details follow. " * 30})
    return messages


def test_summaries_are_written_by_a_function_sync_or_async():
    asked = []

    def summarize(request):
        asked.append(request)
        return "The user asked about orders 1 and 2; both shipped."

    kept, report = Compactor("summarize", 1000).compact(conversation(4), summarize=summarize)
    assert (report.summary_calls, report.dropped, report.tokens_after) == (1, 3, 643)
    assert report.sources[:3] == [0, None, 4]
    assert kept[1] == {"role": "user", "content": "[Summary of earlier conversation]\nThe user asked about orders 1 and 2; both shipped."}
    request = asked[0]
    assert request["keep"] == ["id", "number", "decision"] and request["ratio"] == 0.1
    assert request["system"].startswith("You summarize") or request["system"]
    assert request["messages"][0]["role"] == "user" and request["limit"] == 800

    async def summarize_async(request):
        await asyncio.sleep(0)
        return "async summary"

    kept, _ = Compactor("summarize", 1000).compact(conversation(4), summarize=summarize_async)
    assert kept[1]["content"].endswith("async summary")

    async def inside_a_loop():
        kept, _ = await Compactor("summarize", 1000).compact_async(conversation(4), summarize=summarize_async)
        assert kept[1]["content"].endswith("async summary")
        with pytest.raises(TypeError, match="compact_async"):
            Compactor("summarize", 1000).compact(conversation(4), summarize=summarize_async)

    asyncio.run(inside_a_loop())


def test_a_failed_summary_leaves_the_history_and_an_error_ends_the_compaction():
    attempts = []
    kept, report = Compactor("summarize", 1000).compact(
        conversation(4), summarize=lambda r: attempts.append(r["attempt"])
    )
    # A failed call is asked again twice, then the history stays as it was.
    assert attempts == [0, 1, 2]
    assert report.summary_calls == 3 and report.dropped == 0 and kept == conversation(4)

    def broken(request):
        raise RuntimeError("the model is down")

    with pytest.raises(RuntimeError, match="the model is down"):
        Compactor("summarize", 1000).compact(conversation(4), summarize=broken)
    with pytest.raises(TypeError, match="must return the summary's text"):
        Compactor("summarize", 1000).compact(conversation(4), summarize=lambda r: 42)


def test_the_cache_clock_says_cold_after_its_lifetime():
    now = [1000.0]
    clock = CacheClock(300, now=lambda: now[0])
    assert not clock.cold(), "no call yet: nothing to find cold"
    clock.called()
    now[0] += 300
    assert not clock.cold()
    now[0] += 1
    assert clock.cold()
    assert CacheClock.for_price("claude-sonnet-4-6-1h").ttl_s == 3600
    with pytest.raises(ValueError, match="did you mean claude-sonnet-4-6"):
        CacheClock.for_price("claude-sonet-4-6")


def test_each_price_keeps_the_cache_the_table_gives_it(ctxbench_bin):
    listed = subprocess.run([ctxbench_bin, "prices"], capture_output=True, text=True, check=True).stdout
    rows = [line.split() for line in listed.splitlines()[1:] if line.strip()]
    assert len(rows) >= 10
    for row in rows:
        name = row[0]
        cache = next(cell for cell in row if cell.startswith(("prefix", "breakpoints", "none")))
        ttl = re.search(r"ttl=(\d+)", cache)
        assert CacheClock.for_price(name).ttl_s == (float(ttl.group(1)) if ttl else None), name


def test_trigger_cold_compacts_when_the_clock_says_cold():
    now = [0.0]
    clock = CacheClock(300, now=lambda: now[0])
    compactor = Compactor("truncate:trigger=cold", window=100_000)
    _, report = compactor.compact(support_chat(), cache_cold=clock)
    assert not report.changed, "under the limit, a warm (or unknown) cache: nothing to do"
    clock.called()
    now[0] += 301
    kept, report = compactor.compact(support_chat(), cache_cold=clock)
    assert report.truncated == 1 and kept[3]["content"].startswith("[Truncated")
    _, report = Compactor("truncate:trigger=cold", window=100_000).compact(support_chat(), cache_cold=True)
    assert report.truncated == 1


def test_pairing_errors_name_the_message():
    messages = support_chat()
    assert check_pairing(messages) == 0
    assert check_pairing(messages[:3]) == 1, "the final call waits for its result"
    with pytest.raises(PairingError, match=r"messages\[2\]: tool call \"c1\" has no result"):
        check_pairing(messages[:3] + messages[4:])
    with pytest.raises(PairingError, match=r"messages\[1\]: tool result for \"c1\" answers no call"):
        check_pairing([messages[1], messages[3]])
    assert issubclass(PairingError, ValueError)
    anthropic = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "get_order", "input": {}}]},
        {"role": "user", "content": "no result here"},
    ]
    with pytest.raises(PairingError, match=r"messages\[1\]"):
        check_pairing(anthropic, format="anthropic")


def test_compact_refuses_what_the_cli_refuses():
    """Issue 46: a result without its call came back from ``compact`` (the CLI refuses it), a
    ``cache_cold`` of the wrong type read as cold, and a summarizing strategy with no
    ``summarize=`` did nothing."""
    messages = support_chat()
    user = {"role": "user", "content": "more"}
    # The result of c1 separated from its call by a user message.
    with pytest.raises(PairingError, match="c1"):
        Compactor("drop", 1000).compact([messages[1], messages[2], user, messages[3], user])
    with pytest.raises(PairingError, match="answers no call"):
        Compactor("drop", 1000).compact([messages[0], messages[3]])
    with pytest.raises(TypeError, match=r"cache_cold must be a bool or a CacheClock .*, got .no. \(a str\)"):
        Compactor("truncate:trigger=cold", 1000).compact(messages, cache_cold="no")
    with pytest.raises(ValueError, match="summarize=, a function"):
        Compactor("summarize", 1000).compact(messages)
    with pytest.raises(ValueError, match="claude-code summarizes"):
        Compactor("claude-code", 1500).compact(messages)


def test_errors_say_what_to_write():
    with pytest.raises(ValueError, match="did you mean `truncate`"):
        Compactor("truncat", 1000)
    with pytest.raises(ValueError, match="threshold"):
        Compactor("drop", 1000, threshold=1.5)
    with pytest.raises(ValueError, match="`o200` is not one of chars4, chars4-py, o200k or cl100k"):
        Compactor("drop", 1000, estimator="o200")
    with pytest.raises(ValueError, match="usage"):
        Compactor("drop", 1000, estimator="usage")
    with pytest.raises(ValueError, match="`xml` is not one of chat, anthropic or responses"):
        Compactor("drop", 1000, format="xml")
    with pytest.raises(TypeError, match=r"messages\[1\]\.content: a value of type `set` is not JSON"):
        count_tokens([{"role": "user", "content": "x"}, {"role": "user", "content": {1, 2}}])
    with pytest.raises(ValueError, match=r"messages\[0\]\.tool_calls\[0\]\.id: expected a string"):
        count_tokens([{"role": "assistant", "content": None, "tool_calls": [{"id": 3}]}])
    with pytest.raises(TypeError, match="a list of messages"):
        count_tokens("hello")
    with pytest.raises(ValueError, match="first message"):
        Compactor("drop", 1000).compact(support_chat(), system="be brief")


def test_anthropic_and_responses_lists_keep_what_no_stage_touched():
    body = json.loads((REPO / "tests/fixtures/wire/anthropic-claude-code.json").read_text())
    total = count_tokens(body["messages"], "chars4", "anthropic", system=body["system"])
    kept, report = Compactor("truncate", total // 2, format="anthropic").compact(body["messages"], system=body["system"])
    assert report.truncated > 0 and report.sources is None
    check_pairing(kept, format="anthropic")
    thinking = [b for m in kept for b in (m["content"] if isinstance(m["content"], list) else []) if b.get("type") == "thinking"]
    assert thinking and all("signature" in b for b in thinking), "signed thinking kept as it was"
    body = json.loads((REPO / "tests/fixtures/wire/responses-codex.json").read_text())
    total = count_tokens(body["input"], "chars4", "responses", system=body["instructions"])
    kept, report = Compactor("truncate+drop", total // 2, keep=1, format="responses").compact(body["input"], system=body["instructions"])
    assert report.changed
    check_pairing(kept, format="responses")
    assert any(item.get("type") == "reasoning" and "encrypted_content" in item for item in kept)


def snippet(path, heading=None):
    """The first Python block of a Markdown file (after `heading`, when given)."""
    text = (REPO / path).read_text()
    if heading is not None:
        text = text[text.index(heading):]
    return re.search(r"```python\n(.*?)```", text, re.S).group(1)


def test_the_readmes_snippet_runs():
    namespace = {}
    exec(compile(snippet("README.md", "## In Python"), "README.md", "exec"), namespace)


def test_the_crates_readme_snippet_runs():
    namespace = {}
    exec(compile(snippet("crates/python/README.md"), "crates/python/README.md", "exec"), namespace)


def test_the_guides_first_snippet_runs():
    namespace = {}
    exec(compile(snippet("docs/python.md"), "docs/python.md", "exec"), namespace)


def test_the_verdicts_python_line_constructs_its_pick(ctxbench_bin, tmp_path):
    subprocess.run(
        [ctxbench_bin, "compare", str(REPO / "scenarios/lunch-break.json"), "--seeds", "1", "--no-plots",
         "--out", str(tmp_path)],
        capture_output=True, check=True,
    )
    verdict = json.loads((tmp_path / "verdict.json").read_text())["scenarios"][0]
    made = eval(verdict["use"]["python"], {"Compactor": Compactor})  # noqa: S307 (ctxbench's own line)
    assert made.strategy == verdict["pick"]
    ranked = next(r for r in verdict["ranked"] if r["strategy"] == verdict["pick"])
    assert made.target == (ranked["target"] if ranked["target"] != made.threshold else None)
    assert verdict["use"]["rust"].startswith(f'Compactor::new("{verdict["use"]["python"].split(chr(34))[1]}".parse()?')


def test_the_strategies_help_is_the_librarys():
    assert "truncate" in ctxbench.strategies() and "clear-tool-uses" in ctxbench.strategies()
    assert ctxbench.__version__


def test_the_presets_are_strategy_names_too():
    """The compactors people run, by name: Claude Code's summary opens the history, Anthropic's
    clearing leaves `[cleared]` in all but the last three results, each preset's parameters
    overridable and its canonical name spelt out."""
    asked = []

    def summarize(request):
        asked.append(request)
        return "Order 4471 shipped."

    history = conversation(10) + [{"role": "user", "content": "And order 11?"}]
    claude = Compactor("claude-code", window=1500)
    assert claude.strategy == "claude-code:max_output=32000,native=200000,files=5,file_tokens=5000,pct=100"
    kept, report = claude.compact(history, summarize=summarize)
    assert report.summary_calls == 1 and report.changed
    assert kept[0]["content"].startswith("This session is being continued from a previous conversation")
    assert len(kept) == 2 and kept[-1] is history[-1], "the request under way stays after the summary"

    chat = [{"role": "user", "content": "Search everything."}]
    for k in range(6):
        chat.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{k}", "type": "function", "function": {"name": "search", "arguments": "{}"}}]})
        chat.append({"role": "tool", "tool_call_id": f"c{k}", "content": f"result {k} " * 400})
    kept, report = Compactor("anthropic-clear:trigger=50000", window=8000).compact(chat)
    results = [m["content"] for m in kept if m["role"] == "tool"]
    assert results[:3] == ["[cleared]"] * 3 and all(r != "[cleared]" for r in results[3:])

    with pytest.raises(ValueError, match="at least 50000"):
        Compactor("anthropic-compact:trigger=1000", window=8000)
