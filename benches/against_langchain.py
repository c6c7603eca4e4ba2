#!/usr/bin/env python3
"""ctxbench against LangChain's trim_messages and the parse floor, on the same history, in one run.

Run through benches/against-langchain.sh, which builds the binaries, writes the history and
installs the peers. Arguments: HISTORY CTXBENCH IN_PROCESS [O200K_TABLE] [--sweep].

What is compared, round after round (A B A B, so that a drift of the machine's speed hits both):
- `ctxbench compact --strategy drop` as a whole process (reading, parsing, compacting, writing)
  against LangChain's `trim_messages(strategy="last", include_system=True, start_on="human")` in
  this process, warm (its first call is shown apart), with the same kind of counter: `chars4`
  against LangChain's `"approximate"` counter, `o200k` against tiktoken's o200k_base (each
  message's count memoized within a call, so that it encodes every message once, as ctxbench
  does: LangChain's binary search would otherwise encode each of them about 17 times);
- the library in process (the `in_process` example: the history parsed, one compaction timed)
  against the same LangChain calls;
- `ctxbench compact` against node reading and parsing the same file;
- the Python package (`ctxbench.Compactor("drop").compact`, dicts in and dicts out, a new
  compactor each round) against the same LangChain calls, in this same process.
Both keep the same messages: LangChain's budget is fixed (a tenth of its count of the history),
and ctxbench's window is its own estimate of what LangChain kept plus the first request, which
ctxbench's `drop` always keeps and LangChain's "last" does not; the script checks that each kept
exactly that, with every tool call answered.
"""

import gzip
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROUNDS = 5
ONE_MESSAGE_RUNS = 20
TIKTOKEN_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"


def child(cmd, stdout=None):
    """Runs cmd as a whole process: (seconds, stderr text)."""
    with tempfile.TemporaryFile() as err, open(os.devnull, "wb") as null:
        out = stdout if stdout is not None else null
        start = time.perf_counter()
        code = subprocess.run(cmd, stdout=out, stderr=err).returncode
        seconds = time.perf_counter() - start
        err.seek(0)
        text = err.read().decode()
    if code != 0:
        sys.exit(f"error: {' '.join(cmd)} exited with {code}: {text.strip()}")
    return seconds, text


def peak_kb(cmd):
    """The peak resident memory of cmd, in KB, by GNU time (None without it). Not from this
    process's wait4: Linux counts a child's memory before its exec, that is, this process's."""
    if not os.access("/usr/bin/time", os.X_OK):
        return None
    with tempfile.NamedTemporaryFile("r", suffix=".txt") as f:
        with open(os.devnull, "wb") as null:
            subprocess.run(["/usr/bin/time", "-f", "%M", "-o", f.name, *cmd], stdout=null, stderr=null, check=True)
        return int(f.read().split()[-1])


def paired(messages):
    """Every tool result answers an earlier call of the kept messages, and every call is answered."""
    open_calls = set()
    for m in messages:
        if m.get("role") == "assistant":
            open_calls.update(c["id"] for c in m.get("tool_calls") or [])
        elif m.get("role") == "tool":
            if m["tool_call_id"] not in open_calls:
                return False
            open_calls.discard(m["tool_call_id"])
    return not open_calls


class Figures:
    """Times per measured thing, over the rounds."""

    def __init__(self):
        self.times = {}

    def add(self, name, seconds):
        self.times.setdefault(name, []).append(seconds)

    def best(self, name):
        return min(self.times[name])

    def text(self, name):
        t = self.times[name]
        return f"{min(t) * 1e3:,.0f} ms (median {statistics.median(t) * 1e3:,.0f})"


def ctxbench_window(ctxbench, raw, kept, estimator):
    """ctxbench's estimate of the system prompt, the first request and LangChain's kept tail."""
    body = {"model": raw.get("model"), "messages": [raw["messages"][i] for i in kept]}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(body, f)
    try:
        cmd = [ctxbench, "compact", "--strategy", "none", "--estimator", estimator,
               "--tokenizer", "o200k", "--window", str(10**12), "--report", "json", f.name]
        _, report = child(cmd)
    finally:
        os.unlink(f.name)
    return json.loads(report)["before"]["estimated"]


def main():
    args = [a for a in sys.argv[1:] if a != "--sweep"]
    history, ctxbench, in_process = args[:3]
    table = args[3] if len(args) > 3 else ""
    size = os.path.getsize(history)
    with open(history) as f:
        raw = json.load(f)
    messages = raw["messages"]
    print(f"history   {history}: {len(messages):,} messages, {size / 1e6:.1f} MB")
    print(f"machine   {os.cpu_count()} cores; best of {ROUNDS} rounds (median)")

    lc = load_langchain(table)
    package = load_package()
    figures = Figures()
    checks = []
    rows = []
    for estimator in ["chars4", "o200k"]:
        peer = lc and lc.counter(estimator)
        if lc:
            kept, first = lc.trim(peer)
            checks.append((f"trim_messages ({peer.name}) keeps every tool call with its result",
                           paired([messages[i] for i in kept])))
            # ctxbench keeps the first request too.
            expected = [0, 1] + kept[1:] if kept[1] != 1 else kept
        else:
            expected = None
        window = ctxbench_window(ctxbench, raw, expected, estimator) if expected else len(messages)
        out = os.path.join(tempfile.gettempdir(), f"ctxbench-peers-{estimator}.json")
        command = [ctxbench, "compact", "--strategy", "drop", "--estimator", estimator,
                   "--window", str(window), "--threshold", "1", history]
        lib = [in_process, history, estimator, str(window), "3"]
        for _ in range(ROUNDS):
            if lc:
                figures.add(f"lc {estimator}", lc.time(peer))
            with open(out, "w") as o:
                seconds, _ = child(command, stdout=o)
            figures.add(f"process {estimator}", seconds)
            for threads in ["1", "2"]:
                line = subprocess.run(lib + [threads], capture_output=True, text=True, check=True).stdout
                figures.add(f"library {estimator} {threads}", json.loads(line)["best_ms"] / 1e3)
            if package:
                compactor = package.Compactor("drop", window=window, threshold=1, estimator=estimator)
                start = time.perf_counter()
                from_python, _ = compactor.compact(messages)
                figures.add(f"python {estimator}", time.perf_counter() - start)
        if package and expected:
            checks.append((f"the Python package ({estimator}) keeps what ctxbench compact keeps, your own dicts",
                           len(from_python) == len(expected)
                           and all(a is messages[i] for a, i in zip(from_python, expected))))
        with open(out) as o:
            compacted = json.load(o)["messages"]
        os.unlink(out)
        if expected:
            checks.append((f"ctxbench ({estimator}) keeps what trim_messages keeps, and the first request",
                           compacted == [messages[i] for i in expected]))
        checks.append((f"ctxbench ({estimator}) keeps every tool call with its result", paired(compacted)))
        rows.append((estimator, peer, first if lc else None, peak_kb(command)))

    # The parse floor: node reading and parsing the file, as a process and within it.
    node = ["node", "-e", "const f=require('fs'),t=process.hrtime.bigint();"
            "JSON.parse(f.readFileSync(process.argv[1],'utf8'));"
            "console.error(Number(process.hrtime.bigint()-t)/1e9)", history]
    have_node = which("node")
    for _ in range(ROUNDS if have_node else 0):
        seconds, inside = child(node)
        figures.add("node process", seconds)
        figures.add("node parse", float(inside))
        seconds, _ = child([ctxbench, "compact", "--strategy", "drop", "--estimator", "chars4",
                               "--window", str(len(messages)), history])
        figures.add("process chars4 floor pair", seconds)

    # One message, chars4: the smallest job, and the base of every process.
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"messages": [{"role": "user", "content": "Where is my order?"}]}, f)
    small = [ctxbench, "compact", "--estimator", "chars4", "--window", "1000", f.name]
    one = [child(small)[0] for _ in range(ONE_MESSAGE_RUNS)]
    base = peak_kb(small)
    os.unlink(f.name)

    print()
    print(f"{'':34} {'ctxbench':>26} {'peer':>40}")
    for estimator, peer, first, peak in rows:
        name = peer.name if peer else "(LangChain skipped)"
        lc_text = f"{figures.text('lc ' + estimator)}, first {first * 1e3:,.0f} ms" if peer else "—"
        print(f"{'compact ' + estimator + ' (process)':34} {figures.text('process ' + estimator):>26} {lc_text:>40}   {name}")
        for threads in ["1", "2"]:
            label = f"library {estimator} ({threads} thread{'s' if threads != '1' else ''})"
            peer_text = figures.text("lc " + estimator) if peer else "—"
            print(f"{label:34} {figures.text(f'library {estimator} {threads}'):>26} {peer_text:>40}")
        if package:
            peer_text = figures.text("lc " + estimator) if peer else "—"
            print(f"{'Python package ' + estimator + ' (dicts)':34} {figures.text('python ' + estimator):>26} {peer_text:>40}")
        if peak:
            print(f"{'  peak memory (process)':34} {peak / 1024:>23.1f} MB")
    if have_node:
        print(f"{'compact chars4 vs parse (process)':34} {figures.text('process chars4 floor pair'):>26} "
              f"{figures.text('node process'):>40}   node (parse alone {figures.text('node parse')})")
    memory = f", {base / 1024:.1f} MB" if base else ""
    print(f"{'compact, one message (chars4)':34} {min(one) * 1e3:>20.1f} ms (median {statistics.median(one) * 1e3:.1f}){memory}")

    targets = []
    if lc:
        ratio = figures.best("lc chars4") / figures.best("process chars4")
        targets.append((ratio >= 1, f"compact chars4 (process) vs trim_messages approximate (warm): {ratio:.1f}x (target: at least 1x)"))
        ratio = figures.best("lc o200k") / figures.best("process o200k")
        targets.append((ratio >= 5, f"compact o200k (process) vs trim_messages tiktoken (warm): {ratio:.1f}x (target: 5x)"))
        for threads in ["1", "2"]:
            ratio = figures.best("lc chars4") / figures.best(f"library chars4 {threads}")
            targets.append((ratio >= 5, f"library chars4 ({threads} thread(s)) vs trim_messages approximate: {ratio:.0f}x (target: 5x)"))
            ratio = figures.best("lc o200k") / figures.best(f"library o200k {threads}")
            targets.append((ratio >= 10, f"library o200k ({threads} thread(s)) vs trim_messages tiktoken: {ratio:.1f}x (target: 10x)"))
    if lc and package:
        ratio = figures.best("lc chars4") / figures.best("python chars4")
        targets.append((ratio >= 5, f"Python package chars4 (dicts in and out) vs trim_messages approximate, same process: {ratio:.1f}x (target: 5x)"))
        ratio = figures.best("lc o200k") / figures.best("python o200k")
        targets.append((ratio >= 5, f"Python package o200k (dicts in and out) vs trim_messages tiktoken, same process: {ratio:.1f}x (target: 5x)"))
    if have_node:
        ratio = figures.best("process chars4 floor pair") / figures.best("node process")
        targets.append((ratio <= 1.5, f"compact chars4 (process) vs node reading and parsing (process): {ratio:.2f}x the time (target: at most 1.5x)"))
        ratio = figures.best("process chars4 floor pair") / figures.best("node parse")
        targets.append((ratio <= 1.5, f"compact chars4 (process) vs node's parse alone (within node): {ratio:.2f}x the time (target: at most 1.5x)"))
    chars4_peak = rows[0][3]
    ms = statistics.median(one) * 1e3
    if base and chars4_peak:
        above = (chars4_peak - base) * 1024 / size
        targets.append((above <= 2, f"compact chars4 peak memory above the one-message base: {above:.2f}x the input (target: at most 2x)"))
        mb = base / 1024
        targets.append((ms < 5 and mb < 10, f"one-message compact chars4: {ms:.1f} ms, {mb:.1f} MB (target: under 5 ms and 10 MB)"))
    else:
        targets.append((ms < 5, f"one-message compact chars4: {ms:.1f} ms; memory not measured without GNU time (target: under 5 ms and 10 MB)"))
    if "--sweep" in sys.argv:
        targets.append(sweep(ctxbench))

    print()
    print("checks")
    for name, ok in checks:
        print(f"  {'ok    ' if ok else 'FAILED'} {name}")
    print("targets")
    for ok, text in targets:
        print(f"  {'met    ' if ok else 'NOT met'} {text}")
    if not lc:
        print("  (the LangChain targets were not measured: see above)")
    sys.exit(0 if all(ok for _, ok in checks) else 1)


def which(name):
    return any(os.access(os.path.join(d, name), os.X_OK) for d in os.environ.get("PATH", "").split(os.pathsep))


def sweep(ctxbench):
    """The million-configuration sweep of the bundled suite: its peak memory."""
    out = tempfile.mkdtemp(prefix="ctxbench-sweep-")
    cmd = [ctxbench, "sweep", "--bundled", "--strategies", "truncate+drop,mask+drop",
           "--threshold", "0.05:1.0:0.001", "--keep", "1..16", "--reply-reserve", "0:3400:100",
           "--no-plots", "--out", out]
    start = time.perf_counter()
    kb = peak_kb(cmd)
    seconds = time.perf_counter() - start
    shutil.rmtree(out)
    if kb is None:
        return (False, "sweep: peak memory not measured without GNU time")
    return (kb / 1024 < 300, f"sweep of 1,065,120 configurations x the bundled suite: {kb / 1024:.0f} MB peak, "
            f"{seconds:.0f} s (target: under 300 MB)")


class LangChain:
    def __init__(self, messages, tiktoken):
        from langchain_core.messages import BaseMessage, convert_to_messages, trim_messages
        from langchain_core.messages.utils import count_tokens_approximately

        self.trim_messages = trim_messages
        self.messages = convert_to_messages(messages)
        self.index = {id(m): i for i, m in enumerate(self.messages)}
        self.budget = count_tokens_approximately(self.messages) // 10
        enc = tiktoken.get_encoding("o200k_base")
        self.BaseMessage = BaseMessage
        self.enc = enc

    def counter(self, estimator):
        if estimator == "chars4":
            return Peer("LangChain approximate", lambda: "approximate")
        enc, dumps = self.enc, json.dumps
        BaseMessage = self.BaseMessage

        def make():
            memo = {}

            def count(message: BaseMessage) -> int:
                known = memo.get(id(message))
                if known is None:
                    n = len(enc.encode_ordinary(message.content)) if isinstance(message.content, str) else 0
                    for call in getattr(message, "tool_calls", None) or ():
                        n += len(enc.encode_ordinary(call["name"])) + len(enc.encode_ordinary(dumps(call["args"])))
                    known = memo[id(message)] = n + 3
                return known

            return count

        return Peer("LangChain tiktoken o200k", make)

    def call(self, peer):
        return self.trim_messages(self.messages, max_tokens=self.budget, token_counter=peer.make(),
                                  strategy="last", include_system=True, start_on="human")

    def trim(self, peer):
        """The indices kept, and the first call's time."""
        start = time.perf_counter()
        kept = self.call(peer)
        first = time.perf_counter() - start
        return [self.index[id(m)] for m in kept], first

    def time(self, peer):
        start = time.perf_counter()
        self.call(peer)
        return time.perf_counter() - start


class Peer:
    def __init__(self, name, make):
        self.name, self.make = name, make


def load_package():
    """The Python package `ctxbench` (the wheel the shell script built), or None."""
    try:
        import ctxbench
        return ctxbench
    except ImportError as e:
        print(f"skipped   the Python package: {e} (the script builds it with maturin)")
        return None


def load_langchain(table):
    try:
        if table:
            # tiktoken reads its table from this cache, named by the URL's SHA-1, and checks the
            # table's SHA-256 itself: the crate's copy is the same file.
            cache = tempfile.mkdtemp(prefix="ctxbench-tiktoken-")
            key = hashlib.sha1(TIKTOKEN_URL.encode()).hexdigest()
            with gzip.open(table) as src, open(os.path.join(cache, key), "wb") as dst:
                dst.write(src.read())
            os.environ["TIKTOKEN_CACHE_DIR"] = cache
        import tiktoken
        with open(sys.argv[1]) as f:
            return LangChain(json.load(f)["messages"], tiktoken)
    except Exception as e:  # no package, no table: measure ctxbench alone
        print(f"skipped   LangChain: {e.__class__.__name__}: {e} (pip install langchain-core tiktoken)")
        return None


if __name__ == "__main__":
    main()
