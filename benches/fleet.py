#!/usr/bin/env python3
"""Writes a fleet of Claude Code session logs, to measure `ctxbench import` of a folder of them
and a sharded sweep over what it imports (benches/fleet.sh).

    python3 benches/fleet.py DIR COUNT [SEED]

Each session is a coding agent's: requests of a user, each answered by a few turns of tool calls
(Read, Bash, Grep) with results of very different sizes, then a reply; the sessions' lengths
spread as real ones do (most short, a few long: log-normal turns), so that shards balanced by
count alone would not take the same time. Ids, paths and numbers recur, so the import finds facts.
Deterministic: the same COUNT and SEED write the same files.
"""

import json
import math
import os
import random
import sys

WORDS = ("order invoice shipment refund module parser cache request handler index test fixture "
         "config deploy branch commit build queue worker schema migration token budget window").split()
TOOLS = ("Read", "Bash", "Grep")


def text(rng, words):
    return " ".join(rng.choice(WORDS) + (str(rng.randrange(1000, 99999)) if rng.random() < 0.15 else "")
                    for _ in range(words))


def result(rng):
    # Results of 40 to ~6,000 characters: listings, logs, prose.
    lines = max(1, int(rng.lognormvariate(2.3, 1.0)))
    return "\n".join(f"{n:4d}  {text(rng, rng.randrange(3, 12))}" for n in range(1, lines + 1))


def session(rng, index):
    sid = f"5f0c2a4e-0000-4000-8000-{index:012d}"
    lines, parent, uuid_n = [], None, 0

    def line(kind, message, **extra):
        nonlocal parent, uuid_n
        uuid_n += 1
        uid = f"{index:08x}-0000-4000-8000-{uuid_n:012d}"
        lines.append({"parentUuid": parent, "isSidechain": False, "userType": "external",
                      "cwd": "/home/dev/project", "sessionId": sid, "version": "2.0.37",
                      "type": kind, "message": message, "uuid": uid,
                      "timestamp": f"2026-11-20T09:{uuid_n // 60 % 60:02d}:{uuid_n % 60:02d}.000Z", **extra})
        parent = uid

    requests = max(1, min(40, int(rng.lognormvariate(1.0, 0.8))))
    reply = 0
    for r in range(requests):
        line("user", {"role": "user", "content": f"Request {r + 1}: {text(rng, rng.randrange(8, 30))}"})
        for _ in range(rng.randrange(1, 5)):
            reply += 1
            calls = []
            for k in range(rng.choice((1, 1, 1, 2, 3))):
                tool = rng.choice(TOOLS)
                arg = {"Read": {"file_path": f"/home/dev/project/src/{rng.choice(WORDS)}{rng.randrange(1, 40)}.py"},
                       "Bash": {"command": f"pytest -q tests/test_{rng.choice(WORDS)}.py"},
                       "Grep": {"pattern": rng.choice(WORDS), "path": "src"}}[tool]
                calls.append({"type": "tool_use", "id": f"toolu_{index:06d}{reply:04d}{k}", "name": tool, "input": arg})
            message = {"model": "claude-sonnet-4-5-20250929", "id": f"msg_{index:06d}{reply:05d}",
                       "type": "message", "role": "assistant",
                       "content": [{"type": "text", "text": text(rng, rng.randrange(5, 20))}] + calls,
                       "stop_reason": "tool_use",
                       "usage": {"input_tokens": 3, "cache_creation_input_tokens": rng.randrange(100, 2000),
                                 "cache_read_input_tokens": rng.randrange(1000, 20000), "output_tokens": 120}}
            line("assistant", message, requestId=f"req_{index:06d}{reply:05d}")
            line("user", {"role": "user", "content": [
                {"tool_use_id": c["id"], "type": "tool_result", "content": result(rng)} for c in calls]})
        reply += 1
        line("assistant", {"model": "claude-sonnet-4-5-20250929", "id": f"msg_{index:06d}{reply:05d}",
                           "type": "message", "role": "assistant",
                           "content": [{"type": "text", "text": "Done: " + text(rng, rng.randrange(10, 40))}],
                           "stop_reason": "end_turn",
                           "usage": {"input_tokens": 3, "cache_creation_input_tokens": 50,
                                     "cache_read_input_tokens": rng.randrange(1000, 20000), "output_tokens": 60}})
    return lines


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, count = sys.argv[1], int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    os.makedirs(out, exist_ok=True)
    width = max(4, int(math.log10(max(count, 1))) + 1)
    for i in range(count):
        rng = random.Random(seed * 1_000_003 + i)
        with open(os.path.join(out, f"session-{i:0{width}d}.jsonl"), "w", encoding="utf-8") as f:
            for entry in session(rng, i):
                f.write(json.dumps(entry, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
