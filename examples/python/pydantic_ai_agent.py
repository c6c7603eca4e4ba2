"""A Pydantic AI agent compacting with ctxbench's history processor, measured by `ctxbench serve`.

    cargo run --release -- serve scenarios/bike-shop-return.json --port 8080 &
    pip install maturin && (cd python && maturin build --release)   # the ctxbench wheel, as docs/python.md builds it
    pip install target/wheels/ctxbench-*.whl "pydantic-ai-slim[openai]"
    python examples/python/pydantic_ai_agent.py scenarios/bike-shop-return.json --base-url http://127.0.0.1:8080/v1
    curl -X POST http://127.0.0.1:8080/ctxbench/shutdown     # serve writes its results

The agent is Pydantic AI's own: an `Agent` on `OpenAIChatModel` pointed at serve, the scenario's
system prompt, a tool per scenario tool (`Tool.from_schema`, answered by serve from the
fixtures), and ctxbench's history processor compacting the run's history before
each model request (Pydantic AI 2 takes it as a capability, `ProcessHistory`; version 1 as
`Agent(history_processors=[…])`). Each user request is one `run` on the last run's `all_messages()`. It prints
each compaction it made, and serve's results say what it cost.
"""

import asyncio
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from pydantic_ai import Agent, Tool  # noqa: E402
from pydantic_ai.models.openai import OpenAIChatModel  # noqa: E402
from pydantic_ai.providers.openai import OpenAIProvider  # noqa: E402

import served  # noqa: E402
from ctxbench.integrations.pydantic_ai import history_processor, processing  # noqa: E402


async def main():
    args = served.arguments(__doc__.splitlines()[0]).parse_args()
    played = served.scenario(args.scenario)
    user = args.user or "examples/python/pydantic_ai_agent.py"

    def tool(name, description, schema):
        async def call(**arguments):
            return await asyncio.to_thread(served.ask_tool, args.base_url, name, json.dumps(arguments), user)

        return Tool.from_schema(call, name=name, description=description, json_schema=schema)

    model = OpenAIChatModel("scripted", provider=OpenAIProvider(base_url=args.base_url, api_key="unused"))
    compactor, clock = served.compactor(args, played)
    processor = history_processor(compactor, clock=clock)
    agent = Agent(
        model,
        system_prompt=played.get("system") or (),
        tools=[tool(name, *spec) for name, spec in served.tools(played).items()],
        **processing(processor),
        model_settings={"extra_body": {"user": user}},
    )
    history = []
    for text in served.user_requests(played):
        result = await agent.run(text, message_history=history)
        history = result.all_messages()
        print(f"user: {text}\nassistant: {result.output}", file=sys.stderr)
    served.report("pydantic-ai", processor.reports)


if __name__ == "__main__":
    asyncio.run(main())
