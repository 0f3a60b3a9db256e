"""The README and docs/ stay true to the code: every `layoutbench <subcommand> ...` command they
show (in a code block, continued lines joined, or in inline code) names a subcommand the binary
has and only long options that subcommand's --help lists; every relative link resolves to a
file. The command checks need the built binary (build/layoutbench) and skip without it."""
import re
import subprocess
from functools import lru_cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BIN = REPO / "build" / "layoutbench"
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
COMMAND = re.compile(r"(?:^|[\s/`(])layoutbench\s+([a-z][a-z0-9-]*)(.*)")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def code_texts(markdown):
    """The code a Markdown text shows: each shell block's lines (```sh; a line ending in a
    backslash joined with the next) and each inline code span outside fenced blocks (a block of
    another kind, e.g. the source tree, shows no commands)."""
    texts, block, shell, rest = [], None, False, []
    for line in markdown.split("\n"):
        if line.lstrip().startswith("```"):
            if block is None:
                block, shell = [], line.strip()[3:] in ("sh", "bash", "shell", "console")
            else:
                if shell:
                    texts += re.sub(r"\\\n\s*", " ", "\n".join(block)).split("\n")
                block = None
            continue
        (block if block is not None else rest).append(line)
    texts += re.findall(r"`([^`\n]+)`", re.sub(r"\n(?!\n)", " ", "\n".join(rest)))
    return texts


def shown_commands(markdown):
    """(subcommand, [long options]) of every layoutbench command a Markdown text shows; a
    shell comment ends a command."""
    out = []
    for text in code_texts(markdown):
        for m in COMMAND.finditer(text):
            args = m.group(2).split(" #")[0]
            out.append((m.group(1), re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", args)))
    return out


@lru_cache(maxsize=None)
def help_text(*subcommand):
    result = subprocess.run([str(BIN), *subcommand, "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"layoutbench {' '.join(subcommand)} --help: {result.stderr}"
    return result.stdout


def subcommands():
    """The subcommands `layoutbench --help` lists (CLI11's "Subcommands:" section)."""
    section = help_text().split("Subcommands:", 1)[1]
    return {m.group(1) for m in re.finditer(r"^\s+([a-z][a-z0-9-]*)\s", section, re.M)}


def test_the_parser_finds_commands_in_blocks_continued_lines_and_inline_code():
    text = ("Run `layoutbench plan --preset quick` first.\n\n```sh\n"
            "build/layoutbench krige --wells w.csv \\\n    --out m.csv   # --not-an-option\n```\n"
            "```\nharness/cli/ (layoutbench main, krige)\n```\n"
            "The binary (`build/layoutbench`) and `layoutbench: error` are no commands.\n")
    assert shown_commands(text) == [("krige", ["--wells", "--out"]), ("plan", ["--preset"])]


@pytest.mark.skipif(not BIN.exists(), reason=f"needs the built binary {BIN}")
@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_command_shown_parses(doc):
    known = subcommands()
    problems = []
    for sub, options in shown_commands(doc.read_text()):
        if sub not in known:
            problems.append(f"layoutbench {sub}: no such subcommand ({', '.join(sorted(known))})")
            continue
        listed = set(re.findall(r"--[a-z][a-z0-9-]*", help_text(sub)))
        problems += [f"layoutbench {sub} {o}: not in its --help" for o in options if o not in listed]
    assert problems == []


def test_the_docs_show_commands():
    """The command check above has something to check: the docs show every user subcommand."""
    shown = {sub for doc in DOCS for sub, _ in shown_commands(doc.read_text())}
    assert {"plan", "run", "suites", "idw-interpolate", "krige", "bfs"} <= shown


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(doc):
    broken = []
    for target in LINK.findall(doc.read_text()):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a URL or an anchor of the same page
        path = (doc.parent / target.split("#")[0]).resolve()
        if not path.exists():
            broken.append(target)
    assert broken == []
