"""An OpenAI Agents SDK agent, streaming, measured by `ctxbench serve` from outside.

    cargo run --release -- serve scenarios/bike-shop-return.json --port 8080 &
    pip install openai-agents
    python examples/agents_sdk.py scenarios/bike-shop-return.json --base-url http://127.0.0.1:8080/v1
    curl -X POST http://127.0.0.1:8080/ctxbench/shutdown     # writes reports/serve/

The agent is the SDK's own: an `Agent` with the scenario's system prompt as its instructions and a
`FunctionTool` per scenario tool (its name, description and JSON schema as the scenario gives
them), run with `Runner.run_streamed` once per user request,
the next request's input the last run's `to_input_list()` plus the user's words. The tools answer
what the scenario's fixtures answer in a run in process, padding included: they ask `serve`
(`POST /ctxbench/tool`); in your agent they are your tools. The SDK speaks
Responses (`--api chat` for chat completions) and streams every call; `serve` plays the model from
the scenario's script and records what the SDK sent. This agent does not compact, so its figures
are those of `ctxbench run SCENARIO --strategy none`; put your own compaction in a
`RunConfig(call_model_input_filter=…)` and the figures say what it did.
"""

import argparse
import asyncio
import json
import sys
import urllib.request

from agents import (
    Agent,
    FunctionTool,
    ModelSettings,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    Runner,
    set_tracing_disabled,
)
from openai import AsyncOpenAI, BadRequestError


def ask_serve(url, name, arguments, user):
    """What the scenario's tool `name` answers to `arguments` in this run, from `serve`."""
    body = json.dumps({"name": name, "arguments": arguments, "user": user}).encode()
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.load(reply)["output"]


def tools_of(scenario, serve, user):
    """A FunctionTool per scenario tool, its schema as the scenario gives it (not made strict,
    which would change what is sent), answered by `serve` from the scenario's fixtures for this
    run (`user`)."""

    def tool(name, spec):
        async def invoke(_context, arguments):
            return await asyncio.to_thread(ask_serve, serve, name, arguments, user)

        return FunctionTool(
            name=name,
            description=spec.get("description", ""),
            params_json_schema=spec.get("parameters", {"type": "object", "properties": {}}),
            on_invoke_tool=invoke,
            strict_json_schema=False,
        )

    return [tool(name, spec) for name, spec in sorted(scenario.get("tools", {}).items())]


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", help="the scenario file ctxbench serve plays")
    parser.add_argument("--base-url", default="http://127.0.0.1:8080/v1")
    parser.add_argument("--api", choices=["responses", "chat"], default="responses")
    parser.add_argument("--user", default="examples/agents_sdk.py", help="names this run in serve's report")
    args = parser.parse_args()

    with open(args.scenario, encoding="utf-8") as f:
        scenario = json.load(f)
    set_tracing_disabled(True)
    client = AsyncOpenAI(base_url=args.base_url, api_key="unused", max_retries=0)
    if args.api == "chat":
        model = OpenAIChatCompletionsModel(model="scripted", openai_client=client)
        settings = ModelSettings(extra_body={"user": args.user}, include_usage=True)
    else:
        model = OpenAIResponsesModel(model="scripted", openai_client=client)
        settings = ModelSettings(extra_body={"user": args.user}, store=False)
    serve = args.base_url.rstrip("/").removesuffix("/v1") + "/ctxbench/tool"
    agent = Agent(
        name="scenario agent",
        instructions=scenario.get("system"),
        model=model,
        model_settings=settings,
        tools=tools_of(scenario, serve, args.user),
    )

    history = []
    events = calls = 0
    for request in scenario["requests"]:
        if not request.get("steps"):
            break
        history.append({"role": "user", "content": request["user"]})
        print(f"user: {str(request['user'])[:70]}")
        result = Runner.run_streamed(agent, input=history, max_turns=10)
        try:
            async for event in result.stream_events():
                events += 1
                if event.type == "run_item_stream_event" and event.name == "tool_called":
                    print(f"  tool: {event.item.raw_item.name}({event.item.raw_item.arguments})")
        except BadRequestError as e:
            # Over the window (this agent does not compact): the run ends here, as it does in process.
            print(f"rejected ({e.code}): {e.message}")
            break
        calls += len(result.raw_responses)
        print(f"assistant: {str(result.final_output)[:70]}")
        history = result.to_input_list()
    print(f"{calls} model calls streamed and answered, {events} stream events; serve's report has the figures")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
