"""Measure your own agent's compaction from outside, with `ctxbench serve`.

    cargo run --release -- serve scenarios/bike-shop-return.json --port 8080 &
    pip install openai
    python examples/agent.py scenarios/bike-shop-return.json --base-url http://127.0.0.1:8080/v1
    curl -X POST http://127.0.0.1:8080/ctxbench/shutdown     # writes reports/serve/

The loop below is the kind a team writes with the official `openai` package: it resends the
whole history on every call, runs the tools the model asks for, and compacts old tool results
once the history passes a budget. `ctxbench serve` plays the model from the scenario's script,
enforces the context window with an exact tokenizer, and records every call: what the
compaction cost (tokens sent, calls) and what it broke (overflows, lost facts, pairing).

Here the tools answer from the scenario's fixtures (their text, without ctxbench's generated
padding); in your agent they are your tools, and `compact` is your compaction.
"""

import argparse
import json
import sys

from openai import BadRequestError, OpenAI

CLEARED = "[old tool result cleared]"


def fixture_tools(scenario):
    """The scenario's fixture results: matched by tool name and arguments (as JSON values),
    several results for one key in order with the last repeating."""
    served = {}

    def call(name, arguments):
        tool = scenario.get("tools", {}).get(name)
        if tool is None:
            return f"Unknown tool: {name}"
        args = json.loads(arguments or "{}")
        matching = [r for r in tool.get("results", []) if r.get("args", {}) == args]
        if not matching:
            return f"Error: no result of {name} for {arguments}"
        key = (name, json.dumps(args, sort_keys=True))
        n = served.get(key, 0)
        served[key] = n + 1
        result = matching[min(n, len(matching) - 1)]
        return result["text"] if "text" in result else f"Error: {result['error']}"

    return call


def size(messages):
    """A rough token estimate: the characters of every text and call, over four (the same in
    every wire format, so the loop compacts alike whichever API it speaks)."""
    chars = 0
    for m in messages:
        chars += len(m.get("content") or "") if isinstance(m.get("content"), str) else 0
        for call in m.get("tool_calls") or []:
            chars += len(call["function"]["name"]) + len(call["function"]["arguments"])
    return chars // 4


def compact(messages, budget, keep=2):
    """Our compaction: clear the oldest tool results, never in the last `keep` requests, until
    the estimate is under budget. Tool messages stay, so every call keeps its result."""
    users = [i for i, m in enumerate(messages) if m["role"] == "user"]
    protected = users[-keep] if len(users) >= keep else 0
    for i in range(protected):
        if size(messages) <= budget:
            break
        if messages[i]["role"] == "tool" and messages[i]["content"] != CLEARED:
            messages[i] = {**messages[i], "content": CLEARED}


def responses_request(messages, tools):
    """The chat history as a Responses request: the system prompt as `instructions`, each message
    an input item, each call a `function_call` item and each result its `function_call_output`."""
    items = []
    for m in messages[1:] if messages and messages[0]["role"] == "system" else messages:
        if m["role"] == "tool":
            items.append({"type": "function_call_output", "call_id": m["tool_call_id"], "output": m["content"]})
            continue
        if m["role"] != "assistant":
            items.append({"role": m["role"], "content": m["content"]})
            continue
        if m.get("content") or not m.get("tool_calls"):
            items.append({"type": "message", "role": "assistant",
                          "content": [{"type": "output_text", "text": m.get("content") or ""}]})
        for call in m.get("tool_calls") or []:
            items.append({"type": "function_call", "call_id": call["id"], "name": call["function"]["name"],
                          "arguments": call["function"]["arguments"]})
    request = {"input": items,
               "tools": [{"type": "function", **t["function"]} for t in tools]}
    if messages and messages[0]["role"] == "system":
        request["instructions"] = messages[0]["content"]
    return request


def chat_message(output):
    """A Responses reply's output items as one chat assistant message."""
    text = "".join(part.text for item in output if item.type == "message" for part in item.content
                   if part.type == "output_text")
    calls = [{"id": item.call_id, "type": "function", "function": {"name": item.name, "arguments": item.arguments}}
             for item in output if item.type == "function_call"]
    message = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = calls
    return message


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", help="the scenario file ctxbench serve plays")
    parser.add_argument("--base-url", default="http://127.0.0.1:8080/v1")
    parser.add_argument("--budget", type=int, default=4000, help="compact above this estimate")
    parser.add_argument("--user", default="examples/agent.py", help="names this run in the report")
    parser.add_argument("--api", choices=["chat", "responses"], default="chat",
                        help="POST /chat/completions, or /responses (the history kept as chat messages)")
    args = parser.parse_args()

    with open(args.scenario, encoding="utf-8") as f:
        scenario = json.load(f)
    client = OpenAI(base_url=args.base_url, api_key="unused")
    run_tool = fixture_tools(scenario)
    tools = [
        {"type": "function", "function": {"name": name, "description": t.get("description", ""),
                                          "parameters": t.get("parameters", {"type": "object", "properties": {}})}}
        for name, t in sorted(scenario.get("tools", {}).items())
    ]
    messages = [{"role": "system", "content": scenario["system"]}] if "system" in scenario else []
    messages += scenario.get("preamble", [])

    for request in scenario["requests"]:
        if not request.get("steps"):
            break
        messages += request.get("before", [])
        messages.append({"role": "user", "content": request["user"]})
        print(f"user: {str(request['user'])[:70]}")
        for _turn in range(10):
            compact(messages, args.budget)
            try:
                if args.api == "responses":
                    reply = client.responses.create(model="scripted", user=args.user, store=False,
                                                    **responses_request(messages, tools))
                    message = chat_message(reply.output)
                else:
                    reply = client.chat.completions.create(
                        model="scripted", messages=messages, tools=tools, user=args.user)
                    message = reply.choices[0].message.model_dump(exclude_none=True)
            except BadRequestError as e:
                print(f"rejected ({e.code}): {e.message}")
                return 1
            messages.append(message)
            if not message.get("tool_calls"):
                print(f"assistant: {(message.get('content') or '')[:70]}")
                break
            for call in message["tool_calls"]:
                name, arguments = call["function"]["name"], call["function"]["arguments"]
                print(f"  tool: {name}({arguments})")
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": run_tool(name, arguments)})

    usage = reply.usage.model_dump() if reply.usage else {}
    print(f"last call: {usage.get('prompt_tokens', usage.get('input_tokens'))} prompt tokens; "
          f"facts lost so far in it: {usage.get('ctxbench_facts_lost')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
