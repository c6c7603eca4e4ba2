"""What a new user tripped on (issue 46, the Python package): install lines that point where no
wheel is, and examples that install a package PyPI does not have."""

import ast
import re

import pytest
from conftest import REPO

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
