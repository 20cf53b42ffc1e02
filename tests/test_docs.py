"""The project's documents: every path they name exists, and the tables derived from the
code (event types, problem codes) are up to date.

`python -m tests.test_docs` rewrites the derived tables of docs/api.md and docs/rules.md.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from service.http.problems import API_PROBLEM_CODES
from service.rules.events import EVENT_FIELDS, EVENTS
from service.rules.moves import ERROR_CODES
from service.rules.options import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    OPTION_NAMES,
    OPTION_TABLE,
    PRESETS,
    OptionSpec,
)

ROOT = Path(__file__).resolve().parents[1]
API_DOC = ROOT / "docs/api.md"
RULES_DOC = ROOT / "docs/rules.md"

#: A document named anywhere: a path or a bare name ending in `.md`.
DOCUMENT = re.compile(r"(?<![\w/.-])([\w.-][\w./-]*\.md)\b")
#: The target of a Markdown link (`[text](target)`), outside code.
LINK = re.compile(r"\]\(([^)\s]+)\)")


def project_files() -> list[Path]:
    """Every text file of the project under version control (and new ones not ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    files = []
    for name in listed:
        path = ROOT / name
        if not path.is_file() or path.suffix in (".png", ".ico", ".woff", ".woff2", ".gz"):
            continue
        try:
            path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        files.append(path)
    return files


def _exists(reference: str, source: Path) -> bool:
    target = reference.split("#", 1)[0]
    if not target:
        return True  # an anchor in the same document
    places = [source.parent, ROOT]
    if "/" not in target:
        places.append(ROOT / "docs")  # a document named by itself (`ROOT / "docs" / name`)
    return any((place / target).exists() for place in places)


def test_every_document_a_project_file_names_or_links_exists() -> None:
    missing = []
    files = project_files()
    assert len(files) > 100
    for path in files:
        text = path.read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), 1):
            references = DOCUMENT.findall(line)
            if path.suffix == ".md":
                references += [
                    target
                    for target in LINK.findall(line)
                    if not re.match(r"^[a-z]+:", target)  # http:, mailto: ...
                ]
            for reference in references:
                if not _exists(reference, path):
                    missing.append(f"{path.relative_to(ROOT)}:{number}: {reference}")
    assert missing == []


def test_the_readme_links_the_reference_documents() -> None:
    readme = (ROOT / "README.md").read_text()
    links = set(LINK.findall(readme))
    expected = {
        "docs/rules.md",
        "docs/api.md",
        "docs/bots.md",
        "docs/architecture.md",
        "deploy/README.md",
    }
    assert expected <= links


def test_the_rules_document_every_option_and_preset() -> None:
    rules = RULES_DOC.read_text()
    for name in OPTION_NAMES:
        assert f"| `{name}` |" in rules, name
    for name in PRESETS:
        assert f"| `{name}` |" in rules, name


def _events_table() -> str:
    def fields(kind: str) -> str:
        return ", ".join(
            f"`{name}`" if always else f"`{name}` (when set)" for name, always in EVENT_FIELDS[kind]
        )

    rows = [f"| `{kind}` | {fields(kind)} | {meaning} |" for kind, meaning in EVENTS.items()]
    return "\n".join(["| `type` | fields | what happened |", "|---|---|---|", *rows])


def _problems_table() -> str:
    rows = [
        f"| `{code}` | {row.status or 'other'} | {row.when} |"
        for code, row in API_PROBLEM_CODES.items()
    ]
    rows += [f"| `{code}` | 409 | {when} |" for code, when in ERROR_CODES.items()]
    return "\n".join(["| `code` | status | when |", "|---|---|---|", *rows])


def _values(spec: OptionSpec) -> str:
    """An option's values in words, from its kind and bounds."""

    def shown(value: object) -> str:
        return "null" if value is None else f"`{value}`" if isinstance(value, str) else str(value)

    span = f"{spec.low:,} to {spec.high:,}"
    if spec.kind == "bool":
        return "true, false"
    if spec.kind == "choice":
        return ", ".join(shown(choice) for choice in spec.choices)
    if spec.kind == "int":
        return f"null or {span}" if spec.nullable else span
    if spec.kind == "players":
        return f"`[min, max]` within {MIN_PLAYERS} to {MAX_PLAYERS}"
    if spec.kind == "target":
        return f"{span}, or one per player count"
    return f"a list of round numbers {span}"


def _options_table() -> str:
    rows = [f"| `{spec.name}` | {_values(spec)} | {spec.description} |" for spec in OPTION_TABLE]
    return "\n".join(["| option | values | what it changes |", "|---|---|---|", *rows])


#: The derived tables of each document: the events, problem codes and options, each from
#: the code that defines it.
SECTIONS = {
    API_DOC: {"events": _events_table, "problem-codes": _problems_table},
    RULES_DOC: {"options": _options_table},
}


def _section(text: str, name: str) -> re.Match[str]:
    found = re.search(rf"(<!-- {name}:start -->\n)(.*?)(\n<!-- {name}:end -->)", text, re.S)
    assert found is not None, f"no {name} section"
    return found


def test_the_derived_tables_of_the_documents_are_up_to_date() -> None:
    for doc, sections in SECTIONS.items():
        text = doc.read_text()
        for name, render in sections.items():
            assert _section(text, name).group(2) == render(), (
                f"{doc.relative_to(ROOT)}'s {name} table is stale: "
                "run `.venv/bin/python -m tests.test_docs`"
            )


def write_sections() -> None:
    """Rewrite the derived tables of docs/api.md and docs/rules.md."""
    for doc, sections in SECTIONS.items():
        text = doc.read_text()
        for name, render in sections.items():
            found = _section(text, name)
            text = text[: found.start(2)] + render() + text[found.end(2) :]
        doc.write_text(text)


if __name__ == "__main__":
    write_sections()
