"""What the three framework examples share: the scenario `ctxbench serve` plays (its system prompt,
its user requests, its tools), each tool answered by serve from the scenario's fixtures
(`POST /ctxbench/tool`, as in a run in process), the compactor the flags ask for, and how each
compaction is reported. In your agent, the tools are yours and the model is your provider's.
"""

import argparse
import json
import sys
import urllib.request

from ctxbench import CacheClock, Compactor


def arguments(description):
    """The flags every example takes."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("scenario", help="the scenario file `ctxbench serve` plays")
    parser.add_argument("--base-url", default="http://127.0.0.1:8080/v1", help="serve's OpenAI-compatible base URL")
    parser.add_argument("--user", help="names this run in serve's report (default: the example's name)")
    parser.add_argument("--strategy", default="truncate:trigger=cold+drop", help="a ctxbench strategy string")
    parser.add_argument("--window", type=int, help="the context window (default: the scenario's)")
    parser.add_argument("--threshold", type=float, default=0.8)
    parser.add_argument("--target", type=float, help="the low watermark, a fraction of the window")
    parser.add_argument("--price", default="gpt-5.4-mini", help="the model of ctxbench's price table whose cache the clock follows")
    return parser


def scenario(path):
    """The scenario file, as JSON."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def user_requests(played):
    """The user's words, request by request."""
    return [r["user"] if isinstance(r["user"], str) else r["user"]["content"] for r in played["requests"]]


def tools(played):
    """The scenario's tools: name -> (description, JSON schema of the arguments), in name order."""
    return {
        name: (spec.get("description", ""), spec.get("parameters", {"type": "object", "properties": {}}))
        for name, spec in sorted(played.get("tools", {}).items())
    }


def ask_tool(base_url, name, arguments_json, user):
    """What the scenario's tool `name` answers to these arguments in this run, from serve."""
    root = base_url.rstrip("/").removesuffix("/v1")
    body = json.dumps({"name": name, "arguments": arguments_json, "user": user}).encode()
    request = urllib.request.Request(f"{root}/ctxbench/tool", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.load(reply)["output"]


def compactor(args, played, format="chat"):
    """The compactor and the cache clock the flags ask for."""
    window = args.window or played["window"]
    made = Compactor(args.strategy, window=window, threshold=args.threshold, target=args.target, format=format)
    return made, CacheClock.for_price(args.price)


def report(name, reports):
    """Says each compaction made, and a last line of JSON with the totals (what the tests read)."""
    made = [r for r in reports if r.changed]
    for i, r in enumerate(reports, 1):
        if r.changed:
            print(
                f"{name}: call {i}: {r.tokens_before:,} -> {r.tokens_after:,} tokens (limit {r.limit:,}): "
                f"{r.truncated} truncated, {r.masked} masked, {r.dropped} dropped",
                file=sys.stderr,
            )
    print(json.dumps({
        "example": name,
        "calls": len(reports),
        "compactions": len(made),
        "truncated": sum(r.truncated for r in reports),
        "masked": sum(r.masked for r in reports),
        "dropped": sum(r.dropped for r in reports),
        "strategy": reports[0].strategy if reports else None,
    }))
