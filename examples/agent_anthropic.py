"""The loop of examples/agent.py written with the official `anthropic` package, measured by
`ctxbench serve` over Anthropic's Messages API (POST /v1/messages).

    cargo run --release -- serve scenarios/bike-shop-return.json --port 8080 &
    pip install anthropic
    python examples/agent_anthropic.py scenarios/bike-shop-return.json --base-url http://127.0.0.1:8080
    curl -X POST http://127.0.0.1:8080/ctxbench/shutdown     # writes reports/serve/

The history is Anthropic's: content blocks, `tool_use` in the assistant's turn and
`tool_result` in the next user message. The system prompt and the last block of the last message
carry a `cache_control` mark, as Anthropic agents set them; `serve --cache breakpoints` reads
those marks. The compaction is agent.py's (clear the oldest tool results above a budget, the
same estimate), so the two loops send the same conversation and get the same figures.
"""

import argparse
import copy
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from agent import CLEARED, fixture_tools  # noqa: E402

from anthropic import Anthropic, BadRequestError  # noqa: E402


def arguments_of(block):
    """A tool_use block's input as the JSON text a chat call's arguments hold."""
    return json.dumps(block["input"], separators=(",", ":"), ensure_ascii=False)


def size(messages):
    """agent.py's estimate: the characters of every text and call, over four."""
    chars = 0
    for m in messages:
        if isinstance(m["content"], str):
            chars += len(m["content"])
            continue
        for block in m["content"]:
            if block["type"] == "text":
                chars += len(block["text"])
            elif block["type"] == "tool_use":
                chars += len(block["name"]) + len(arguments_of(block))
            elif block["type"] == "tool_result" and isinstance(block.get("content"), str):
                chars += len(block["content"])
    return chars // 4


def compact(messages, budget, keep=2):
    """agent.py's compaction: clear the oldest tool results, never in the last `keep` requests,
    until the estimate is under budget. The blocks stay, so every tool_use keeps its result."""
    requests = [i for i, m in enumerate(messages) if m["role"] == "user" and isinstance(m["content"], str)]
    protected = requests[-keep] if len(requests) >= keep else 0
    for i in range(protected):
        if isinstance(messages[i]["content"], str):
            continue
        for block in messages[i]["content"]:
            if size(messages) <= budget:
                return
            if block["type"] == "tool_result" and block.get("content") != CLEARED:
                block["content"] = CLEARED


def marked(messages):
    """The messages as sent: the last block of the last message marked for the cache."""
    sent = copy.deepcopy(messages)
    last = sent[-1]
    if isinstance(last["content"], str):
        last["content"] = [{"type": "text", "text": last["content"]}]
    last["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return sent


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", help="the scenario file ctxbench serve plays")
    parser.add_argument("--base-url", default="http://127.0.0.1:8080", help="the server, without /v1")
    parser.add_argument("--budget", type=int, default=4000, help="compact above this estimate")
    parser.add_argument("--user", default="examples/agent_anthropic.py", help="names this run in the report")
    args = parser.parse_args()

    with open(args.scenario, encoding="utf-8") as f:
        scenario = json.load(f)
    client = Anthropic(base_url=args.base_url, api_key="unused")
    run_tool = fixture_tools(scenario)
    tools = [
        {"name": name, "description": t.get("description", ""),
         "input_schema": t.get("parameters", {"type": "object", "properties": {}})}
        for name, t in sorted(scenario.get("tools", {}).items())
    ]
    system = [{"type": "text", "text": scenario["system"], "cache_control": {"type": "ephemeral"}}] \
        if "system" in scenario else []
    messages = []
    cleared = 0

    for request in scenario["requests"]:
        if not request.get("steps"):
            break
        messages.append({"role": "user", "content": request["user"]})
        print(f"user: {str(request['user'])[:70]}")
        for _turn in range(10):
            before = json.dumps(messages)
            compact(messages, args.budget)
            cleared += before != json.dumps(messages)
            try:
                reply = client.messages.create(
                    model="scripted", max_tokens=1024, system=system, messages=marked(messages),
                    tools=tools, metadata={"user_id": args.user})
            except BadRequestError as e:
                print(f"rejected: {e.message}")
                return 1
            content = [block.model_dump(exclude_none=True) for block in reply.content]
            messages.append({"role": "assistant", "content": content})
            calls = [block for block in content if block["type"] == "tool_use"]
            if not calls:
                text = "".join(block.get("text", "") for block in content)
                print(f"assistant: {text[:70]}")
                break
            results = []
            for call in calls:
                print(f"  tool: {call['name']}({arguments_of(call)})")
                results.append({"type": "tool_result", "tool_use_id": call["id"],
                                "content": run_tool(call["name"], arguments_of(call))})
            messages.append({"role": "user", "content": results})

    usage = reply.usage.model_dump()
    print(f"last call: {usage.get('input_tokens')} input tokens, {usage.get('cache_read_input_tokens')} read "
          f"from the cache; compacted before {cleared} calls")
    return 0


if __name__ == "__main__":
    sys.exit(main())
