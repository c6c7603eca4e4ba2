"""What the Python package's tests share: the repository, the `ctxbench` binary they hold the
package to (the Rust library's answers), `ctxbench serve` for the framework agents, and a
compactor that records every call it makes.

The binary is $CTXBENCH_BIN, else target/debug/ctxbench or target/release/ctxbench (newest
first); `.ci/run` sets $CTXBENCH_BIN. Without one the tests that need it say so and skip; with
$CTXBENCH_BIN set to a file that is not there they fail.
"""

import json
import os
import subprocess
import urllib.request
from pathlib import Path

import pytest

import ctxbench

REPO = Path(__file__).resolve().parents[2]


def binary():
    """The ctxbench binary, or None."""
    given = os.environ.get("CTXBENCH_BIN")
    if given:
        if not Path(given).is_file():
            raise FileNotFoundError(f"CTXBENCH_BIN={given}: no such file")
        return given
    found = [p for p in (REPO / "target/debug/ctxbench", REPO / "target/release/ctxbench") if p.is_file()]
    return str(max(found, key=lambda p: p.stat().st_mtime)) if found else None


@pytest.fixture(scope="session")
def ctxbench_bin():
    path = binary()
    if path is None:
        pytest.skip("no ctxbench binary to compare with: build it (cargo build) or set CTXBENCH_BIN")
    return path


def cli_compact(bin_path, body, strategy, window, *, fmt="chat", threshold=None, target=None, keep=None,
                reply_reserve=None, estimator="chars4"):
    """`ctxbench compact` on a body: (the body it wrote, its JSON report)."""
    args = [bin_path, "compact", "--strategy", strategy, "--window", str(window), "--format", fmt,
            "--estimator", estimator, "--report", "json"]
    for flag, value in (("--threshold", threshold), ("--target", target), ("--keep", keep),
                        ("--reply-reserve", reply_reserve)):
        if value is not None:
            args += [flag, str(value)]
    done = subprocess.run(args, input=json.dumps(body).encode(), capture_output=True, check=False)
    if done.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {done.returncode}: {done.stderr.decode()}")
    return json.loads(done.stdout), json.loads(done.stderr)


def body_of(messages, fmt="chat", system=None, tools=None):
    """The request body a list of messages makes, in its format."""
    key = "input" if fmt == "responses" else "messages"
    body = {key: messages}
    if system is not None:
        body["instructions" if fmt == "responses" else "system"] = system
    if tools:
        body["tools"] = tools
    return body


def list_of(body, fmt="chat"):
    """A body's list (a bare list is its own)."""
    if isinstance(body, list):
        return body
    return body["input" if fmt == "responses" else "messages"]


class Served:
    """A `ctxbench serve` child on a free port; `stop()` writes its results."""

    def __init__(self, bin_path, scenario, out):
        self.out = Path(out)
        self.child = subprocess.Popen(
            [bin_path, "serve", str(REPO / scenario), "--port", "0", "-o", str(self.out)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=REPO,
        )
        line = self.child.stdout.readline().decode().strip()
        assert line.startswith("listening on "), line
        self.url = line.removeprefix("listening on ")
        self.base_url = f"{self.url}/v1"

    def stop(self):
        request = urllib.request.Request(f"{self.url}/ctxbench/shutdown", data=b"", method="POST")
        urllib.request.urlopen(request, timeout=30).read()
        self.child.wait(timeout=60)
        log = self.child.stderr.read().decode()
        assert self.child.returncode == 0, log
        return log

    def rows(self):
        """results.json's rows."""
        return json.loads((self.out / "results.json").read_text())["results"]


@pytest.fixture
def serve(ctxbench_bin, tmp_path):
    started = []

    def start(scenario):
        served = Served(ctxbench_bin, scenario, tmp_path / f"serve-{len(started)}")
        started.append(served)
        return served

    yield start
    for served in started:
        if served.child.poll() is None:
            served.child.kill()


class Recording(ctxbench.Compactor):
    """A compactor that keeps every call: (the list given, the keywords, the list and report
    returned)."""

    def __init__(self, *args, **kwargs):
        self.calls = []

    def compact(self, messages, **kwargs):
        out = super().compact(messages, **kwargs)
        self.calls.append((list(messages), kwargs, out))
        return out

    async def compact_async(self, messages, **kwargs):
        out = await super().compact_async(messages, **kwargs)
        self.calls.append((list(messages), kwargs, out))
        return out
