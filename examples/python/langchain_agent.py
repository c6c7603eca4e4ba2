"""A LangChain v1 agent (`create_agent`) compacting with ctxbench's middleware, measured by `ctxbench serve`.

    cargo run --release -- serve scenarios/bike-shop-return.json --port 8080 &
    pip install maturin && (cd python && maturin build --release)   # the ctxbench wheel, as docs/python.md builds it
    pip install target/wheels/ctxbench-*.whl langchain langchain-openai
    python examples/python/langchain_agent.py scenarios/bike-shop-return.json --base-url http://127.0.0.1:8080/v1
    curl -X POST http://127.0.0.1:8080/ctxbench/shutdown     # serve writes its results

The agent is LangChain's own: `ChatOpenAI` pointed at serve, a tool per scenario tool (its JSON
schema as the scenario gives it, answered by serve from the fixtures), the scenario's system
prompt, and `CtxbenchMiddleware` compacting the agent's state before each model call (with
`--edit`, `ContextEditingMiddleware(edits=[CtxbenchEdit(…)])` compacting what each call sends
instead: the same requests). Each user request is one `invoke` on the thread's messages. It prints each compaction it made, and serve's
results say what it cost.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from langchain.agents import create_agent  # noqa: E402
from langchain.agents.middleware import ContextEditingMiddleware  # noqa: E402
from langchain_core.messages import HumanMessage  # noqa: E402
from langchain_core.tools import StructuredTool  # noqa: E402
from langchain_openai import ChatOpenAI  # noqa: E402

import served  # noqa: E402
from ctxbench.integrations.langchain import CtxbenchEdit, CtxbenchMiddleware  # noqa: E402


def main():
    parser = served.arguments(__doc__.splitlines()[0])
    parser.add_argument("--edit", action="store_true", help="compact as a ContextEdit of ContextEditingMiddleware")
    args = parser.parse_args()
    played = served.scenario(args.scenario)
    user = args.user or "examples/python/langchain_agent.py"

    def tool(name, description, schema):
        def call(**arguments):
            return served.ask_tool(args.base_url, name, json.dumps(arguments), user)

        return StructuredTool.from_function(call, name=name, description=description, args_schema=schema)

    tools = [tool(name, *spec) for name, spec in served.tools(played).items()]
    model = ChatOpenAI(model="scripted", base_url=args.base_url, api_key="unused", max_retries=0,
                       model_kwargs={"user": user})
    compactor, clock = served.compactor(args, played)
    if args.edit:
        hook = CtxbenchEdit(compactor, clock=clock, system=played.get("system"))
        middleware = ContextEditingMiddleware(edits=[hook])
    else:
        hook = middleware = CtxbenchMiddleware(compactor, clock=clock, system=played.get("system"))
    agent = create_agent(model, tools, system_prompt=played.get("system"), middleware=[middleware])
    messages = []
    for text in served.user_requests(played):
        state = agent.invoke({"messages": messages + [HumanMessage(content=text)]})
        messages = state["messages"]
        print(f"user: {text}\nassistant: {messages[-1].text}", file=sys.stderr)
    served.report("langchain", hook.reports)


if __name__ == "__main__":
    main()
