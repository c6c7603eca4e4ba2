"""Each adapter in a real agent of its framework (installed from PyPI; none is faked): the examples
under examples/python run against `ctxbench serve`, compact, keep every tool call with its result
(serve checks each request, as a provider does), complete the scenario, and each compaction they
made is the one the Rust library makes of the same history (`ctxbench compact`)."""

import asyncio
import contextlib
import importlib.util
import io
import json
import sys

import pytest
from conftest import REPO, Recording, body_of, cli_compact, list_of

from ctxbench import CacheClock, check_pairing

SCENARIO = "scenarios/bike-shop-return.json"

EXAMPLES = {
    "langchain": ("langchain_agent.py", "langchain", "chat"),
    "openai-agents": ("openai_agents_agent.py", "agents", "responses"),
    "pydantic-ai": ("pydantic_ai_agent.py", "pydantic_ai", "chat"),
}


def load(file):
    spec = importlib.util.spec_from_file_location(file.removesuffix(".py"), REPO / "examples/python" / file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_example(name, base_url, strategy, *flags, user=None):
    """Runs the example in this process, its compactor recording; returns (the recording, the
    summary line it printed)."""
    file, _, _ = EXAMPLES[name]
    module = load(file)
    made = []

    def recording(args, played, format="chat"):
        compactor = Recording(strategy, window=args.window or played["window"], threshold=args.threshold,
                              target=args.target, format=format)
        made.append(compactor)
        return compactor, CacheClock.for_price(args.price)

    module.served.compactor = recording
    argv = [file, str(REPO / SCENARIO), "--base-url", base_url, "--user", user or name, "--strategy", strategy, *flags]
    out = io.StringIO()
    saved = sys.argv
    sys.argv = argv
    try:
        with contextlib.redirect_stdout(out):
            done = module.main()
            if asyncio.iscoroutine(done):
                asyncio.run(done)
    finally:
        sys.argv = saved
    return made[0], json.loads(out.getvalue().strip().splitlines()[-1])


@pytest.mark.parametrize("name", sorted(EXAMPLES))
@pytest.mark.parametrize("strategy", ["truncate:trigger=cold+drop", "drop"])
def test_the_adapter_compacts_a_real_agent_as_the_library_does(ctxbench_bin, serve, name, strategy):
    pytest.importorskip(EXAMPLES[name][1], reason=f"the {name} framework is not installed (.ci/run installs it)")
    served = serve(SCENARIO)
    recording, summary = run_example(name, served.base_url, strategy)
    log = served.stop()
    assert summary["compactions"] >= 1, summary
    rows = served.rows()
    assert len(rows) == 1, log
    row = rows[0]
    assert (row["run"], row["completed"], row["pairing_errors"], row["overflows"]) == (name, True, 0, 0), row
    fmt = EXAMPLES[name][2]
    compared = 0
    for given, kwargs, (kept, report) in recording.calls:
        check_pairing(kept, format=fmt)
        if any(stage["guarded"] for stage in report.stages):
            # The library's loop guard held a stage back, remembering an earlier call: a fresh
            # `ctxbench compact` would not know it.
            continue
        written, cli = cli_compact(ctxbench_bin, body_of(given, fmt, kwargs.get("system"), kwargs.get("tools")),
                                   strategy, recording.window, fmt=fmt, threshold=recording.threshold)
        assert json.dumps(kept) == json.dumps(list_of(written, fmt)), f"call {compared + 1}"
        assert (report.tokens_before, report.tokens_after) == (cli["before"]["estimated"], cli["after"]["estimated"])
        compared += 1
    assert compared >= len(recording.calls) - 1 and any(r.changed for _, _, (_, r) in recording.calls)


def test_langchains_context_edit_sends_what_the_middleware_sends(ctxbench_bin, serve):
    """ContextEditingMiddleware edits a fresh copy for each call; CtxbenchEdit carries its
    compaction over, so the calls are the middleware's, byte for byte (serve sees the same bill)."""
    pytest.importorskip("langchain", reason="LangChain is not installed (.ci/run installs it)")
    served = serve(SCENARIO)
    _, state = run_example("langchain", served.base_url, "truncate+drop", user="state")
    _, edit = run_example("langchain", served.base_url, "truncate+drop", "--edit", user="edit")
    served.stop()
    assert state["compactions"] >= 1 and edit["compactions"] == state["compactions"], (state, edit)
    rows = {row["run"]: row for row in served.rows()}
    figures = ("tokens_sent", "cache_read_tokens", "model_calls", "peak_request_tokens", "completed")
    assert [rows["edit"][f] for f in figures] == [rows["state"][f] for f in figures]


def test_langchain_summaries_are_written_by_the_chat_model():
    """`summarize_with(model)`: the summary request goes to a LangChain chat model (LangChain's
    own fake, no network), and its reply becomes the summary, a HumanMessage among the agent's
    own messages."""
    pytest.importorskip("langchain", reason="LangChain is not installed (.ci/run installs it)")
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, HumanMessage

    from ctxbench import Compactor
    from ctxbench.integrations.langchain import compact_messages, summarize_with

    model = GenericFakeChatModel(messages=iter([AIMessage(content="Orders 1 and 2 shipped.")]))
    history = []
    for n in range(1, 5):
        history.append(HumanMessage(content=f"Where is order {n}? " + "Please check. " * 30, id=f"h{n}"))
        history.append(AIMessage(content=f"Order {n} shipped. " + "Details follow. " * 30, id=f"a{n}"))
    kept, report = compact_messages(Compactor("summarize", 1000), history, summarize=summarize_with(model))
    assert (report.summary_calls, report.dropped) == (1, 3)
    assert kept[0] is history[0] and kept[2:] == history[4:]
    assert isinstance(kept[1], HumanMessage)
    assert kept[1].content == "[Summary of earlier conversation]\nOrders 1 and 2 shipped."
