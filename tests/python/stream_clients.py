"""The official clients read `ctxbench serve`'s streams: every call of a scenario, asked once
unstreamed and once streamed (as run `plain-API` and `streamed-API`), in each of the three wire
formats, through each package's own stream reader: `openai`'s `chat.completions.stream` and
`responses.stream`, `anthropic`'s `messages.stream`. Each stream is read to its end with no error,
and the message it reassembles must equal the unstreamed one field for field, usage included.

    python tests/python/stream_clients.py scenarios/bike-shop-return.json http://127.0.0.1:8080

Exits 0 and prints one line per format when every call agreed; 1 with the first difference.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
from agent import fixture_tools  # noqa: E402

from anthropic import Anthropic  # noqa: E402
from openai import OpenAI  # noqa: E402


def same(api, call, plain, streamed):
    if plain != streamed:
        keys = sorted(set(plain) | set(streamed))
        diff = {k: (plain.get(k), streamed.get(k)) for k in keys if plain.get(k) != streamed.get(k)}
        raise SystemExit(f"{api}, call {call}: the streamed reply differs from the unstreamed one: {diff}")


def chat(client, scenario, tools):
    """Chat completions: `stream_options.include_usage`, so the usage (ctxbench's figures in it)
    comes in the stream's last chunk."""
    tool_specs = [{"type": "function", "function": {"name": n, "description": t.get("description", ""),
                                                    "parameters": t.get("parameters", {"type": "object"})}}
                  for n, t in sorted(scenario.get("tools", {}).items())]
    run_tool = fixture_tools(scenario)
    messages = [{"role": "system", "content": scenario["system"]}] if "system" in scenario else []
    calls = chunks = 0
    for request in scenario["requests"]:
        messages.append({"role": "user", "content": request["user"]})
        for _ in range(10):
            calls += 1
            ask = {"model": "scripted", "messages": messages, "tools": tool_specs}
            plain = client.chat.completions.create(user="plain-chat", **ask)
            with client.chat.completions.stream(user="streamed-chat", stream_options={"include_usage": True},
                                                **ask) as stream:
                for _event in stream:
                    chunks += 1
                final = stream.get_final_completion()
            message = plain.choices[0].message.model_dump(exclude_none=True)
            got = final.choices[0].message.model_dump(exclude_none=True)
            got.pop("parsed", None)
            for call in got.get("tool_calls", []):
                # What the client's accumulator adds of its own: the delta's index, parsed arguments.
                call.pop("index", None)
                call.pop("parsed_arguments", None)
            same("chat", calls, {"message": message, "finish": plain.choices[0].finish_reason,
                                 "usage": plain.usage.model_dump()},
                 {"message": got, "finish": final.choices[0].finish_reason, "usage": final.usage.model_dump()})
            messages.append(message)
            if not message.get("tool_calls"):
                break
            for call in message["tool_calls"]:
                f = call["function"]
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": run_tool(f["name"], f["arguments"])})
    return calls, chunks


def responses(client, scenario, tools):
    """Responses: the reply rebuilt from the events, checked against `response.completed`."""
    run_tool = fixture_tools(scenario)
    specs = [{"type": "function", "name": n, "description": t.get("description", ""),
              "parameters": t.get("parameters", {"type": "object"})}
             for n, t in sorted(scenario.get("tools", {}).items())]
    items = []
    calls = events = 0
    for request in scenario["requests"]:
        items.append({"role": "user", "content": request["user"]})
        for _ in range(10):
            calls += 1
            ask = {"model": "scripted", "input": items, "tools": specs, "store": False}
            if "system" in scenario:
                ask["instructions"] = scenario["system"]
            plain = client.responses.create(user="plain-responses", **ask)
            with client.responses.stream(user="streamed-responses", **ask) as stream:
                for _event in stream:
                    events += 1
                final = stream.get_final_response()
            same("responses", calls, plain.model_dump(exclude_none=True), final.model_dump(exclude_none=True))
            output = [item.model_dump(exclude_none=True) for item in plain.output]
            items.extend(output)
            called = [item for item in output if item["type"] == "function_call"]
            if not called:
                break
            for item in called:
                items.append({"type": "function_call_output", "call_id": item["call_id"],
                              "output": run_tool(item["name"], item["arguments"])})
    return calls, events


def anthropic(client, scenario, tools):
    """Anthropic Messages: the message `messages.stream` accumulates, usage from message_delta."""
    run_tool = fixture_tools(scenario)
    specs = [{"name": n, "description": t.get("description", ""),
              "input_schema": t.get("parameters", {"type": "object"})}
             for n, t in sorted(scenario.get("tools", {}).items())]
    messages = []
    calls = events = 0
    for request in scenario["requests"]:
        messages.append({"role": "user", "content": request["user"]})
        for _ in range(10):
            calls += 1
            ask = {"model": "scripted", "max_tokens": 1024, "messages": messages, "tools": specs}
            if "system" in scenario:
                ask["system"] = scenario["system"]
            plain = client.messages.create(metadata={"user_id": "plain-anthropic"}, **ask)
            with client.messages.stream(metadata={"user_id": "streamed-anthropic"}, **ask) as stream:
                for _event in stream:
                    events += 1
                final = stream.get_final_message()
            same("anthropic", calls, plain.model_dump(exclude_none=True), final.model_dump(exclude_none=True))
            content = [block.model_dump(exclude_none=True) for block in plain.content]
            messages.append({"role": "assistant", "content": content})
            uses = [b for b in content if b["type"] == "tool_use"]
            if not uses:
                break
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": b["id"],
                 "content": run_tool(b["name"], json.dumps(b["input"], separators=(",", ":")))} for b in uses]})
    return calls, events


def main():
    scenario_file, base = sys.argv[1], sys.argv[2].rstrip("/")
    with open(scenario_file, encoding="utf-8") as f:
        scenario = json.load(f)
    scenario["requests"] = [r for r in scenario["requests"] if r.get("steps")]
    openai = OpenAI(base_url=f"{base}/v1", api_key="unused", max_retries=0)
    for name, play in [("chat", chat), ("responses", responses)]:
        calls, events = play(openai, scenario, None)
        print(f"{name}: {calls} calls, {events} events read, every streamed reply equal to its unstreamed one")
    calls, events = anthropic(Anthropic(base_url=base, api_key="unused", max_retries=0), scenario, None)
    print(f"anthropic: {calls} calls, {events} events read, every streamed reply equal to its unstreamed one")
    return 0


if __name__ == "__main__":
    sys.exit(main())
