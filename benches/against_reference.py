"""Runs the reference listing's Python compact() and ctxbench on the same generated histories.

Checks that ctxbench (`reference:flavor=py`, the port of the Python listing) returns the same
history, message for message, and prints how much faster it is, as a whole process, than the
reference listing's compact() in one Python call. `truncate+drop` (the TypeScript semantics) is timed too.

The listing is read at run time from the reference listing's Markdown (its `estimate_tokens`, `keep_from` and
`compact`), never copied into this repository. Standard library only.

Usage: python3 benches/against_reference.py PATTERN.md path/to/ctxbench [SIZES...]
"""

import ast
import json
import os
import random
import subprocess
import sys
import tempfile
import time

WANTED = {"estimate_tokens", "keep_from", "compact"}


def load_listing(markdown_path):
    """The three functions of the reference listing's Python listing, compiled."""
    text = open(markdown_path, encoding="utf-8").read()
    start = text.index("```python", text.index("**Python**"))
    code = text[start + len("```python"):text.index("```", start + 9)]
    tree = ast.parse(code)
    keep = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    keep += [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in WANTED]
    found = {n.name for n in keep if isinstance(n, ast.FunctionDef)}
    if found != WANTED:
        sys.exit(f"the listing in {markdown_path} lacks {sorted(WANTED - found)}")
    return compile(ast.Module(body=keep, type_ignores=[]), markdown_path, "exec")


def history(n, rng):
    """n messages of support traffic: requests, tool calls, results of very different sizes."""
    words = "order wheel rim spoke hub tire tube brake chain invoice shipping return stock".split()
    out, k = [], 0
    while len(out) < n:
        out.append({"role": "user", "content": f"Request {k}: about order #{rng.randint(1000, 9999)}"})
        for s in range(rng.randint(1, 3)):
            cid = f"call_{s}"
            args = json.dumps({"order": k})
            out.append({"role": "assistant", "content": None,
                        "tool_calls": [{"id": cid, "type": "function", "function": {"name": "get_order", "arguments": args}}]})
            size = rng.choice([40, 400, 2000])
            text = " ".join(rng.choice(words) for _ in range(size // 6)) + " 订单 ✓"
            out.append({"role": "tool", "tool_call_id": cid, "content": text})
        out.append({"role": "assistant", "content": f"Done with request {k}."})
        k += 1
    return out[:n] if out[n - 1]["role"] != "assistant" or not out[n - 1].get("tool_calls") else out[:n - 1]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    listing, binary = sys.argv[1], sys.argv[2]
    sizes = [int(s) for s in sys.argv[3:]] or [1000, 3000]
    code = load_listing(listing)
    rng = random.Random(7)
    system = "You are the support assistant of a bike shop."
    failed = False
    print(f"{'messages':>8}  {'seed (Python)':>13}  {'reference:flavor=py':>19}  {'ratio':>7}  {'truncate+drop':>13}  {'ratio':>7}  same history")
    for n in sizes:
        messages = history(n, rng)
        estimate = (len(system) + sum(len(json.dumps(m)) for m in messages)) // 4
        window = estimate // 3  # so that compaction has real work: truncate, then drop
        env = {"SYSTEM": system, "WINDOW": {"max_tokens": window, "threshold": 0.8, "keep_recent_turns": 2}}
        exec(code, env)
        started = time.perf_counter()
        expected = env["compact"](messages)
        seed_seconds = time.perf_counter() - started

        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "history.json")
            json.dump({"messages": [{"role": "system", "content": system}] + messages}, open(path, "w"))

            def run(strategy):
                best, out = None, None
                for _ in range(3):
                    started = time.perf_counter()
                    done = subprocess.run([binary, "compact", "--strategy", strategy, "--window", str(window),
                                           "--threshold", "0.8", "--keep", "2", "--report", "json", path],
                                          check=True, capture_output=True)
                    seconds = time.perf_counter() - started
                    best, out = min(best or seconds, seconds), done.stdout
                return best, json.loads(out)["messages"][1:]

            py_seconds, got = run("reference:flavor=py")
            td_seconds, _ = run("truncate+drop")
        same = got == expected and len(expected) < len(messages)
        failed |= not same
        print(f"{n:>8}  {seed_seconds:>12.3f}s  {py_seconds:>18.3f}s  {seed_seconds / py_seconds:>6.0f}×  "
              f"{td_seconds:>12.3f}s  {seed_seconds / td_seconds:>6.0f}×  {'yes' if same else 'NO'}"
              f"  ({len(messages)} → {len(expected)} messages)")
    if failed:
        sys.exit("ctxbench and the reference listing disagree")


if __name__ == "__main__":
    main()
