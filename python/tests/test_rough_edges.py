"""What a new user tripped on (issue 46, the Python package): install lines that point where no
wheel is, examples that install a package PyPI does not have, no type stubs, stray modules in
`dir(ctxbench)`, and Python's conversion errors, without the argument's name, for a wrong
argument."""

import ast
import asyncio
import importlib.metadata
import inspect
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

import ctxbench
from ctxbench import CacheClock, Compactor, _native, check_pairing, count_tokens

# Where `maturin build` writes the wheel: the workspace's target directory.
WHEELS = REPO / "target" / "wheels"


def shell_steps(lines, start=REPO):
    """Follows shell lines from `start` as a shell runs them (`cmd && cmd`, `cd`, a subshell
    `( … )`, a trailing `&`, `# comments`): each command with the directory it runs in."""
    steps = []
    cwd = start
    for line in lines:
        line = line.split(" #")[0].strip().removesuffix("&").strip()
        saved = []
        for part in line.split("&&"):
            part = part.strip()
            while part.startswith("("):
                saved.append(cwd)
                part = part[1:].strip()
            closing = len(part) - len(part.rstrip(")"))
            part = part.rstrip(")").strip()
            if part.startswith("cd "):
                cwd = (cwd / part[3:].strip()).resolve()
            elif part:
                steps.append((cwd, part))
            for _ in range(closing):
                cwd = saved.pop()
    return steps


def check_build_and_install(steps, where):
    """The wheel is built where its pyproject is, installed from where maturin writes it, and
    any script run is there."""
    built = [cwd for cwd, command in steps if command.startswith("maturin build")]
    assert built, f"{where}: no `maturin build`"
    assert all((cwd / "pyproject.toml").is_file() for cwd in built), f"{where}: maturin runs where no pyproject.toml is"
    wheels = [(cwd, arg) for cwd, command in steps if command.startswith("pip install")
              for arg in command.split()[2:] if arg.endswith(".whl")]
    assert wheels, f"{where}: no wheel installed"
    for cwd, arg in wheels:
        assert (cwd / arg).parent.resolve() == WHEELS, f"{where}: `pip install {arg}` in {cwd} looks in {(cwd / arg).parent.resolve()}, not {WHEELS}"
    for cwd, command in steps:
        words = command.split()
        assert not (words[:2] == ["pip", "install"] and "ctxbench" in words), f"{where}: `{command}`: ctxbench is not on PyPI"
        if words[0] == "python" and words[1].endswith(".py"):
            assert (cwd / words[1]).is_file(), f"{where}: `{command}` in {cwd}: no such script"
        if words[:2] == ["cargo", "run"]:
            assert (cwd / "Cargo.toml").is_file(), f"{where}: `{command}` in {cwd}: no Cargo.toml"


def readme_install_lines():
    """The code spans of the README's Python paragraph that build or install the package."""
    text = (REPO / "README.md").read_text()
    section = text[text.index("## In Python"):]
    section = section[:section.index("```")]
    spans = [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", section)]
    return [span for span in spans if span.startswith(("pip ", "cd "))]


def sh_block(path, heading=None):
    """The lines of the first ```sh block of a Markdown file (after `heading`, when given)."""
    text = (REPO / path).read_text()
    if heading is not None:
        text = text[text.index(heading):]
    return re.search(r"```sh\n(.*?)```", text, re.S).group(1).splitlines()


def commands(lines):
    """Each command of shell lines, with where it runs (from the repository's root)."""
    return [(str(cwd.relative_to(REPO)), command) for cwd, command in shell_steps(lines)]


def test_the_readmes_install_lines_are_the_guides_and_install_the_wheel_maturin_wrote():
    readme = readme_install_lines()
    guide = sh_block("docs/python.md", "## Install")
    assert commands(readme) == commands(guide)
    assert commands(sh_block("crates/python/README.md")) == commands(guide)
    for where, lines in (("README.md", readme), ("docs/python.md", guide)):
        check_build_and_install(shell_steps(lines), where)


@pytest.mark.parametrize("example", sorted(p.name for p in (REPO / "examples/python").glob("*_agent.py")))
def test_each_examples_docstring_installs_ctxbench_from_the_repository(example):
    docstring = ast.get_docstring(ast.parse((REPO / "examples/python" / example).read_text()))
    lines = [line.strip() for line in docstring.splitlines() if line.startswith("    ")]
    check_build_and_install(shell_steps(lines), example)


def test_the_wheel_ships_type_stubs_of_every_native_name_and_py_typed():
    installed = {str(path) for path in importlib.metadata.files("ctxbench")}
    assert {"ctxbench/_native.pyi", "ctxbench/py.typed"} <= installed
    stub = ast.parse((Path(ctxbench.__file__).parent / "_native.pyi").read_text())

    def public(names):
        return {n for n in names if not n.startswith("_") or n == "__version__"}

    top = {node.name: node for node in stub.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
    declared = {node.target.id for node in stub.body if isinstance(node, ast.AnnAssign)}
    assert public(top) | public(declared) == public(dir(_native))
    for name in public(top):
        node, real = top[name], getattr(_native, name)
        if isinstance(node, ast.FunctionDef):
            assert stub_signature(node) == real_signature(real), name
            continue
        members = {m.name: m for m in node.body if isinstance(m, ast.FunctionDef)}
        assert public(members) == public(dir(real)) - public(dir(ValueError if name == "PairingError" else object)), name
        for member, method in members.items():
            if member == "__new__":
                assert stub_signature(method)[1:] == real_signature(real), name
            elif not any(isinstance(d, ast.Name) and d.id == "property" for d in method.decorator_list):
                assert stub_signature(method) == real_signature(getattr(real, member)), f"{name}.{member}"


REQUIRED = "(no default)"


def stub_signature(node):
    """A stub function's parameters: (name, kind, default)."""
    a = node.args
    defaults = [REQUIRED] * (len(a.args) - len(a.defaults)) + [ast.literal_eval(d) for d in a.defaults]
    out = [(p.arg, "positional", d) for p, d in zip(a.args, defaults)]
    out += [(p.arg, "keyword", REQUIRED if d is None else ast.literal_eval(d)) for p, d in zip(a.kwonlyargs, a.kw_defaults)]
    return out


def real_signature(function):
    """A native function's parameters as its text signature declares them: (name, kind, default)."""
    kinds = {inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional", inspect.Parameter.POSITIONAL_ONLY: "positional",
             inspect.Parameter.KEYWORD_ONLY: "keyword"}
    return [(p.name, kinds[p.kind], REQUIRED if p.default is inspect.Parameter.empty else p.default)
            for p in inspect.signature(function).parameters.values()]


PUBLIC = {"CacheClock", "CompactReport", "Compactor", "PairingError", "check_pairing", "count_tokens", "strategies"}


def test_the_packages_namespace_is_its_public_api():
    listed = subprocess.run([sys.executable, "-c", "import json, ctxbench; print(json.dumps(dir(ctxbench)))"],
                            capture_output=True, text=True, check=True, cwd=REPO / "python/tests")
    names = set(json.loads(listed.stdout))
    assert {n for n in names if not n.startswith("_")} == PUBLIC
    assert set(ctxbench.__all__) == PUBLIC | {"__version__"}


WINDOW = "window must be a whole number of tokens greater than 0"
THRESHOLD = "threshold must be a fraction of the window greater than 0 and at most 1"
TARGET = "target must be a fraction of the window greater than 0 and at most the threshold (0.8), or None"
KEEP = "keep must be a whole number of requests, 1 or more (the request being answered is always kept)"
RESERVE = "reply_reserve must be a whole number of tokens, 0 or more and smaller than the window (8000)"
SUMMARIZE = "summarize must be a function that receives the summary request (a dict) and returns the summary's text or None"
TTL = "ttl_s must be the cache's lifetime, a number of seconds (0 or more), or None for no cache"
MESSAGES = [{"role": "user", "content": "Where is my order?"}]


def clock_at(now):
    clock = CacheClock(300, now=lambda: now)
    clock.called(at=0)
    return clock


WRONG = [
    # Compactor: each number, each name.
    (lambda: Compactor("drop", window="8000"), TypeError, f"{WINDOW}, got '8000' (a str)"),
    (lambda: Compactor("drop", window=8000.5), TypeError, f"{WINDOW}, got 8000.5 (a float)"),
    (lambda: Compactor("drop", window=True), TypeError, f"{WINDOW}, got True (a bool)"),
    (lambda: Compactor("drop", window=None), TypeError, f"{WINDOW}, got None"),
    (lambda: Compactor("drop", window=-5), ValueError, f"{WINDOW}, got -5"),
    (lambda: Compactor("drop", window=0), ValueError, f"{WINDOW}, got 0"),
    (lambda: Compactor("drop", window=10**30), ValueError,
     f"{WINDOW}, at most 18446744073709551615, got 1000000000000000000000000000000"),
    (lambda: Compactor("drop", 8000, threshold="0.8"), TypeError, f"{THRESHOLD}, got '0.8' (a str)"),
    (lambda: Compactor("drop", 8000, threshold=None), TypeError, f"{THRESHOLD}, got None"),
    (lambda: Compactor("drop", 8000, threshold=1.5), ValueError, f"{THRESHOLD}, got 1.5"),
    (lambda: Compactor("drop", 8000, threshold=float("nan")), ValueError, f"{THRESHOLD}, got nan"),
    (lambda: Compactor("drop", 8000, threshold=10**400), ValueError, f"{THRESHOLD}, got 1000"),
    (lambda: Compactor("drop", 8000, target="half"), TypeError, f"{TARGET}, got 'half' (a str)"),
    (lambda: Compactor("drop", 8000, target=0.9), ValueError, f"{TARGET}, got 0.9"),
    (lambda: Compactor("drop", 8000, target=0), ValueError, f"{TARGET}, got 0"),
    (lambda: Compactor("drop", 8000, keep=-1), ValueError, f"{KEEP}, got -1"),
    (lambda: Compactor("drop", 8000, keep=0), ValueError, f"{KEEP}, got 0"),
    (lambda: Compactor("drop", 8000, keep=2.0), TypeError, f"{KEEP}, got 2.0 (a float)"),
    (lambda: Compactor("drop", 8000, keep="2"), TypeError, f"{KEEP}, got '2' (a str)"),
    (lambda: Compactor("drop", 8000, reply_reserve=-1), ValueError, f"{RESERVE}, got -1"),
    (lambda: Compactor("drop", 8000, reply_reserve=8000), ValueError, f"{RESERVE}, got 8000"),
    (lambda: Compactor("drop", 8000, reply_reserve=[100]), TypeError, f"{RESERVE}, got [100] (a list)"),
    (lambda: Compactor(42, 8000), TypeError,
     'strategy must be a strategy string such as "truncate+drop" (ctxbench.strategies() lists the stages), got 42 (an int)'),
    (lambda: Compactor("drop", 8000, estimator=4), TypeError,
     "estimator must be an estimator's name (chars4, chars4-py, o200k or cl100k), got 4 (an int)"),
    (lambda: Compactor("drop", 8000, format=None), TypeError,
     "format must be a format's name (chat, anthropic or responses), got None"),
    # compact and compact_async.
    (lambda: Compactor("drop", 8000).compact(MESSAGES, summarize=42), TypeError, f"{SUMMARIZE}, got 42 (an int)"),
    (lambda: Compactor("summarize", 8000).compact(MESSAGES, summarize="gpt-5"), TypeError,
     f"{SUMMARIZE}, got 'gpt-5' (a str)"),
    (lambda: asyncio.run(Compactor("summarize", 8000).compact_async(MESSAGES, summarize=42)), TypeError,
     f"{SUMMARIZE}, got 42 (an int)"),
    (lambda: Compactor("drop", 8000).compact(MESSAGES, cache_cold="no"), TypeError,
     "cache_cold must be a bool or a CacheClock (whether the provider's prompt cache has expired), or None, got 'no' (a str)"),
    (lambda: Compactor("drop", 8000).compact("hello"), TypeError,
     "messages must be a list of messages (dicts), got 'hello' (a str)"),
    (lambda: asyncio.run(Compactor("drop", 8000).compact_async(5)), TypeError,
     "messages must be a list of messages (dicts), got 5 (an int)"),
    (lambda: Compactor("drop", 8000).compact(MESSAGES, tools={"name": "get_order"}), TypeError,
     "tools must be a list of tool schemas (dicts), or None, got {'name': 'get_order'} (a dict)"),
    # CacheClock.
    (lambda: CacheClock("300"), TypeError, f"{TTL}, got '300' (a str)"),
    (lambda: CacheClock(True), TypeError, f"{TTL}, got True (a bool)"),
    (lambda: CacheClock(-1), ValueError, f"{TTL}, got -1"),
    (lambda: CacheClock(float("nan")), ValueError, f"{TTL}, got nan"),
    (lambda: CacheClock(300, now=5), TypeError,
     "now must be a function returning the time in seconds, such as time.time, got 5 (an int)"),
    (lambda: CacheClock(300).called(at="12:00"), TypeError,
     "at must be a time in seconds, as now() gives it, or None for now, got '12:00' (a str)"),
    (lambda: clock_at(10).cold(at=[1]), TypeError, "at must be a time in seconds, as now() gives it, or None for now, got [1] (a list)"),
    (lambda: clock_at("noon").cold(), TypeError, "now() must return the time in seconds (a number), returned 'noon' (a str)"),
    (lambda: CacheClock.for_price(42), TypeError,
     "name must be the name of a model of ctxbench's price table, such as \"gpt-5.4-mini\" (`ctxbench prices` lists them), got 42 (an int)"),
    # count_tokens and check_pairing.
    (lambda: count_tokens(MESSAGES, tokenizer=5), TypeError,
     "tokenizer must be a tokenizer's name (chars4, chars4-py, o200k or cl100k), got 5 (an int)"),
    (lambda: count_tokens(MESSAGES, "o200k", ["chat"]), TypeError,
     "format must be a format's name (chat, anthropic or responses), got ['chat'] (a list)"),
    (lambda: check_pairing(MESSAGES, format=1), TypeError,
     "format must be a format's name (chat, anthropic or responses), got 1 (an int)"),
]


@pytest.mark.parametrize(("call", "error", "words"), WRONG, ids=[w for _, _, w in WRONG])
def test_a_wrong_argument_is_named_with_what_it_takes(call, error, words):
    with pytest.raises(error) as raised:
        call()
    assert type(raised.value) is error
    assert str(raised.value).startswith(words)


def test_what_the_arguments_take_is_still_taken():
    """Ints of any kind where a whole number goes (through ``__index__``), ints where a fraction
    goes, the defaults when nothing is given, None for ``target`` and ``summarize``."""

    class Tokens:
        def __index__(self):
            return 8000

    made = Compactor("drop", Tokens(), threshold=1, target=None, keep=3, reply_reserve=10)
    assert (made.window, made.threshold, made.target, made.keep, made.reply_reserve) == (8000, 1.0, None, 3, 10)
    default = Compactor("drop", 8000)
    for parameter in list(inspect.signature(Compactor).parameters.values())[2:]:
        assert getattr(default, parameter.name) == parameter.default, "the signature shows the defaults taken"
    kept, _ = default.compact(MESSAGES, summarize=None, cache_cold=None, tools=None)
    assert kept[0] is MESSAGES[0]
    assert CacheClock(None).cold() is False and CacheClock(0.5, now=lambda: 1).ttl_s == 0.5
    assert count_tokens(MESSAGES, "chars4", "chat") > 0
