"""An OpenAI Agents SDK agent compacting with ctxbench's input filter, measured by `ctxbench serve`.

    cargo run --release -- serve scenarios/bike-shop-return.json --port 8080 &
    pip install maturin && (cd python && maturin build --release)   # the ctxbench wheel, as docs/python.md builds it
    pip install target/wheels/ctxbench-*.whl openai-agents
    python examples/python/openai_agents_agent.py scenarios/bike-shop-return.json --base-url http://127.0.0.1:8080/v1
    curl -X POST http://127.0.0.1:8080/ctxbench/shutdown     # serve writes its results

The agent is the SDK's own: an `Agent` with the scenario's system prompt as its instructions, a
`FunctionTool` per scenario tool (answered by serve from the fixtures), run with `Runner.run`
once per user request on the last run's `to_input_list()`, through the Responses API, with
`RunConfig(call_model_input_filter=…)` compacting each model call's input and the filter's hooks
telling the cache clock when each call ends. It prints each compaction it made, and serve's
results say what it cost.
"""

import asyncio
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from agents import (  # noqa: E402
    Agent,
    FunctionTool,
    ModelSettings,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
    set_tracing_disabled,
)
from openai import AsyncOpenAI  # noqa: E402

import served  # noqa: E402
from ctxbench.integrations.openai_agents import input_filter  # noqa: E402


async def main():
    args = served.arguments(__doc__.splitlines()[0]).parse_args()
    played = served.scenario(args.scenario)
    user = args.user or "examples/python/openai_agents_agent.py"

    def tool(name, description, schema):
        async def invoke(_context, arguments):
            return await asyncio.to_thread(served.ask_tool, args.base_url, name, arguments, user)

        return FunctionTool(name=name, description=description, params_json_schema=schema,
                            on_invoke_tool=invoke, strict_json_schema=False)

    set_tracing_disabled(True)
    client = AsyncOpenAI(base_url=args.base_url, api_key="unused", max_retries=0)
    agent = Agent(
        name="support",
        instructions=played.get("system"),
        model=OpenAIResponsesModel(model="scripted", openai_client=client),
        model_settings=ModelSettings(extra_body={"user": user}),
        tools=[tool(name, *spec) for name, spec in served.tools(played).items()],
    )
    compactor, clock = served.compactor(args, played, format="responses")
    compact = input_filter(compactor, clock=clock)
    items = []
    for text in served.user_requests(played):
        result = await Runner.run(agent, items + [{"role": "user", "content": text}],
                                  run_config=RunConfig(call_model_input_filter=compact), hooks=compact.hooks)
        items = result.to_input_list()
        print(f"user: {text}\nassistant: {result.final_output}", file=sys.stderr)
    served.report("openai-agents", compact.reports)


if __name__ == "__main__":
    asyncio.run(main())
