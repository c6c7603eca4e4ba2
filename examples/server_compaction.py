"""An agent that leaves its context to the provider's server, measured by `ctxbench serve`:
Anthropic's server-side compaction and context editing (`context_management.edits`, beta), or
OpenAI's Responses compaction (`context_management`, or `POST /v1/responses/compact`).

    cargo run --release -- serve scenarios/long-support-chat.json --port 8080 &
    pip install anthropic openai
    python examples/server_compaction.py scenarios/long-support-chat.json --api anthropic --edit compact
    python examples/server_compaction.py scenarios/long-support-chat.json --api responses --edit compact
    curl -X POST http://127.0.0.1:8080/ctxbench/shutdown     # writes reports/serve/

The agent keeps its whole history and appends each reply as the API returns it (a `compaction`
block or item included): the server drops what came before the last compaction and edits the
rest as asked, as the real APIs do. The tools answer what the scenario's fixtures answer in a
run in process, padding included (`POST /ctxbench/tool`), so serve's figures for this run are
those of `ctxbench run SCENARIO --strategy anthropic-compact` (or anthropic-clear,
openai-compact). Token amounts are stated for the provider's model window and scale with the
served one, as the presets' do.
"""

import argparse
import json
import sys
import urllib.request

import anthropic
import openai
from anthropic import Anthropic
from openai import OpenAI


def ask_serve(base_url, name, arguments, user):
    """What the scenario's tool `name` answers to `arguments` in this run, from `serve`."""
    body = json.dumps({"name": name, "arguments": arguments, "user": user}).encode()
    request = urllib.request.Request(base_url + "/ctxbench/tool", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.load(reply)["output"]


def anthropic_edits(edit, trigger, pause):
    """The `context_management` of an Anthropic request."""
    if edit == "compact":
        return {"edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": trigger},
                           "pause_after_compaction": pause}]}
    if edit == "clear":
        return {"edits": [{"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": trigger}}]}
    return {"edits": [{"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}}]}


def run_anthropic(args, scenario):
    client = Anthropic(base_url=args.base_url, api_key="unused")
    tools = [
        {"name": name, "description": t.get("description", ""),
         "input_schema": t.get("parameters", {"type": "object", "properties": {}})}
        for name, t in sorted(scenario.get("tools", {}).items())
    ]
    extra = {"system": scenario["system"]} if "system" in scenario else {}
    messages, compactions = [], 0
    for request in scenario["requests"]:
        if not request.get("steps"):
            break
        messages.append({"role": "user", "content": request["user"]})
        for _turn in range(20):
            create = dict(
                model="scripted", max_tokens=1024, messages=messages, tools=tools,
                betas=["compact-2026-01-12", "context-management-2025-06-27"],
                context_management=anthropic_edits(args.edit, args.trigger, args.pause),
                metadata={"user_id": args.user}, **extra)
            if args.stream:
                with client.beta.messages.stream(**create) as stream:
                    reply = stream.get_final_message()
            else:
                reply = client.beta.messages.create(**create)
            content = [block.model_dump(exclude_none=True) for block in reply.content]
            messages.append({"role": "assistant", "content": content})
            for block in content:
                if block["type"] == "compaction":
                    compactions += 1
                    spent = [i.model_dump() for i in reply.usage.iterations or []]
                    print(f"compaction: {len(block.get('content') or '')} characters of summary; iterations {spent}")
            edits = reply.context_management.applied_edits if reply.context_management else []
            for e in edits:
                print(f"edit: {e.model_dump()}")
            if reply.stop_reason == "compaction":
                print("paused after the compaction: sending again")
                continue
            calls = [block for block in content if block["type"] == "tool_use"]
            if not calls:
                break
            results = [{"type": "tool_result", "tool_use_id": c["id"],
                        "content": ask_serve(args.serve, c["name"], json.dumps(c["input"], separators=(",", ":")), args.user)}
                       for c in calls]
            messages.append({"role": "user", "content": results})
    return compactions


def run_responses(args, scenario):
    client = OpenAI(base_url=args.base_url + "/v1", api_key="unused")
    tools = [
        {"type": "function", "name": name, "description": t.get("description", ""),
         "parameters": t.get("parameters", {"type": "object", "properties": {}})}
        for name, t in sorted(scenario.get("tools", {}).items())
    ]
    items, compactions = [], 0
    for request in scenario["requests"]:
        if not request.get("steps"):
            break
        items.append({"role": "user", "content": request["user"]})
        for _turn in range(20):
            create = dict(model="scripted", input=items, tools=tools, user=args.user,
                          context_management=[{"type": "compaction", "compact_threshold": args.trigger}])
            if "system" in scenario:
                create["instructions"] = scenario["system"]
            if args.stream:
                with client.responses.stream(**create) as stream:
                    reply = stream.get_final_response()
            else:
                reply = client.responses.create(**create)
            output = [item.model_dump(exclude_none=True) for item in reply.output]
            for item in output:
                # What goes back is what the API takes: an output item's `status` stays behind.
                item.pop("status", None)
                if item["type"] == "compaction":
                    compactions += 1
                    print(f"compaction: item {item['id']}; usage {reply.usage.model_dump().get('ctxbench_compaction')}")
            items.extend(output)
            calls = [item for item in output if item["type"] == "function_call"]
            if not calls:
                break
            for c in calls:
                items.append({"type": "function_call_output", "call_id": c["call_id"],
                              "output": ask_serve(args.serve, c["name"], c["arguments"], args.user)})
    if args.compact_endpoint:
        compacted = client.responses.compact(model="scripted", input=items,
                                             instructions=scenario.get("system"))
        kinds = [item.type for item in compacted.output]
        print(f"/responses/compact: {compacted.object}, output {kinds}, usage {compacted.usage.input_tokens} in")
    return compactions


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", help="the scenario file ctxbench serve plays")
    parser.add_argument("--base-url", default="http://127.0.0.1:8080", help="the server, without /v1")
    parser.add_argument("--api", choices=["anthropic", "responses"], default="anthropic")
    parser.add_argument("--edit", choices=["compact", "clear", "clear-thinking"], default="compact")
    parser.add_argument("--trigger", type=int, default=None,
                        help="input tokens that trigger it, for the provider's model window (default: its API's)")
    parser.add_argument("--stream", action="store_true", help="ask for each reply as server-sent events")
    parser.add_argument("--pause", action="store_true",
                        help="(anthropic compact) pause_after_compaction: the server answers with the compaction alone")
    parser.add_argument("--compact-endpoint", action="store_true",
                        help="(responses) end by compacting the history with POST /v1/responses/compact")
    parser.add_argument("--user", default="examples/server_compaction.py", help="names this run in serve's report")
    args = parser.parse_args()
    args.serve = args.base_url.rstrip("/")
    if args.trigger is None:
        args.trigger = {("anthropic", "compact"): 150000, ("anthropic", "clear"): 100000}.get((args.api, args.edit), 200000)

    with open(args.scenario, encoding="utf-8") as f:
        scenario = json.load(f)
    try:
        compactions = run_anthropic(args, scenario) if args.api == "anthropic" else run_responses(args, scenario)
    except (anthropic.BadRequestError, openai.BadRequestError) as e:
        # The server refused a request (over the window): the run stops there, as the loop's does.
        print(f"rejected: {e.message}")
        return 0
    print(f"done: {compactions} compactions by the server")
    return 0


if __name__ == "__main__":
    sys.exit(main())
