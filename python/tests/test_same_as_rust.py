"""The package gives what the Rust library gives: on the repository's conversations (chat bodies,
real traces, an Anthropic and a Responses body) and on generated histories, `Compactor.compact`
returns byte for byte the messages `ctxbench compact` writes, with the same figures; and
`count_tokens` counts what the library counts."""

import json

import pytest
from conftest import REPO, body_of, cli_compact, list_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxbench import Compactor, count_tokens

STRATEGIES = [
    # The two stages that rewrite a chat message past its content (thinking cleared, calls'
    # arguments emptied): such a message comes back as the library wrote it.
    "clear-thinking+drop",
    "clear-tool-uses:keep=1,inputs=true",
    "truncate+drop",
    "drop",
    "truncate:preview=20",
    "mask:m=2+drop",
    "window:n=1",
    "clear-tool-uses:keep=1",
    "truncate:trigger=always+mask:m=1,trigger=always",
    "reference",
]


def fixture(name):
    """A fixture's (list, format, system, tools): what the package is given of the body."""
    body = json.loads((REPO / "tests/fixtures" / name).read_text())
    if name.startswith("traces/"):
        return body["messages"], "chat", None, body.get("tools")
    if isinstance(body, list):
        return body, "chat", None, None
    if "input" in body:
        return body["input"], "responses", body.get("instructions"), body.get("tools")
    if "system" in body:
        return body["messages"], "anthropic", body["system"], body.get("tools")
    return body["messages"], "chat", None, body.get("tools")


FIXTURES = [
    "support-chat.json",
    "coding-agent.json",
    "traces/tau1-airline-gpt4o__task12__trial3.json",
    "traces/mini-swe-deepseek__django__django-14915.json",
    "wire/anthropic-claude-code.json",
    "wire/responses-codex.json",
]


def text(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def same(bin_path, messages, fmt, system, tools, strategy, window, **policy):
    """Compacts with the package and with the binary; asserts the same bytes and figures."""
    estimator = policy.pop("estimator", "chars4")
    compactor = Compactor(strategy, window, format=fmt, estimator=estimator, **policy)
    kept, report = compactor.compact(messages, system=system, tools=tools)
    written, cli = cli_compact(bin_path, body_of(messages, fmt, system, tools), strategy, window,
                               fmt=fmt, estimator=estimator, **policy)
    assert text(kept) == text(list_of(written, fmt)), f"{strategy} at {window}"
    assert (report.tokens_before, report.tokens_after, report.limit) == (
        cli["before"]["estimated"], cli["after"]["estimated"], cli["limit"]
    )
    assert (report.truncated, report.masked, report.dropped) == (cli["truncated"], cli["masked"], cli["dropped"])
    return report


@pytest.mark.parametrize("name", FIXTURES)
def test_the_repositorys_conversations_compact_as_in_rust(ctxbench_bin, name):
    messages, fmt, system, tools = fixture(name)
    before = json.dumps(messages)
    changed = 0
    for estimator in ("chars4", "o200k"):
        total = count_tokens(messages, estimator, fmt, system=system, tools=tools)
        for strategy in STRATEGIES:
            if strategy == "reference" and fmt != "chat":
                continue
            for window in (total, total * 3 // 4, total // 3):
                report = same(ctxbench_bin, messages, fmt, system, tools, strategy, max(window, 1),
                              estimator=estimator, target=0.5 if window % 2 else None)
                changed += report.changed
    assert changed > 0, "some compaction changed the history (the comparison compared something)"
    assert json.dumps(messages) == before, "the input was not changed"


@pytest.mark.parametrize("name", FIXTURES)
def test_count_tokens_counts_what_rust_counts(ctxbench_bin, name):
    messages, fmt, system, tools = fixture(name)
    for tokenizer in ("o200k", "cl100k", "chars4", "chars4-py"):
        counted = count_tokens(messages, tokenizer, fmt, system=system, tools=tools)
        _, cli = cli_compact(ctxbench_bin, body_of(messages, fmt, system, tools), "none", 10**9, fmt=fmt,
                             estimator=tokenizer)
        assert counted == cli["before"]["estimated"], tokenizer


# Generated chat histories: requests of text (Latin, Chinese, emoji, escapes), parallel tool calls
# answered in or out of order, null contents, thinking, later system messages, a pending call at
# the end.
words = st.text(alphabet=st.sampled_from(list("abc xyz 0123 订单号 🚲\"\\\n\t")), max_size=40)
long_text = st.builds(lambda w, n: w * n, words, st.integers(1, 60))


@st.composite
def histories(draw):
    messages = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(words)})
    for r in range(draw(st.integers(1, 7))):
        messages.append({"role": "user", "content": draw(long_text)})
        for s in range(draw(st.integers(0, 3))):
            calls = draw(st.integers(0, 3))
            if calls == 0:
                reply = {"role": "assistant", "content": draw(st.one_of(st.none(), long_text))}
                if draw(st.integers(0, 3)) == 0:
                    reply["reasoning_content"] = draw(long_text)
                messages.append(reply)
                continue
            ids = [f"call_{s}_{k}" for k in range(calls)]
            messages.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": i, "type": "function", "function": {"name": "get_order", "arguments": json.dumps({"k": n})}}
                for n, i in enumerate(ids)
            ]})
            if draw(st.booleans()):
                ids.reverse()
            for i in ids:
                messages.append({"role": "tool", "tool_call_id": i, "content": draw(long_text)})
        if draw(st.integers(0, 9)) == 0:
            messages.append({"role": "system", "content": "Reminder: be brief."})
    if draw(st.integers(0, 5)) == 0:
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": "pending", "type": "function", "function": {"name": "get_order", "arguments": "{}"}}
        ]})
    return messages


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    messages=histories(),
    strategy=st.sampled_from(STRATEGIES),
    window=st.integers(20, 4000),
    threshold=st.sampled_from([0.5, 0.8, 1.0]),
    keep=st.integers(1, 3),
)
def test_generated_histories_compact_as_in_rust(ctxbench_bin, messages, strategy, window, threshold, keep):
    same(ctxbench_bin, messages, "chat", None, None, strategy, window, threshold=threshold, keep=keep)
