#!/usr/bin/env python3
"""Turns the guides of docs/ into articles of the DocC catalog, for `make docs`.

docs/*.md stay the one source: GitHub shows them, tests and scripts read them, `make bench`
rewrites docs/Performance.md. This script writes a converted copy of each into
Sources/GRDBCipher/GRDBCipher.docc/Guides/ (ignored by git, rewritten on every run), where the
article's name is the guide's file name (docs/KeyManagement.md becomes <doc:KeyManagement>).

The conversion is small: links between guides become DocC links (`[text](Other.md#a-heading)`
becomes `[text](<doc:Other#A-heading>)`), and links to other files of the repository, which the
site does not hold, become their path in code voice. Anything else that DocC would warn about
fails `make docs` (warnings are errors), so fix it in the guide.

Usage: scripts/docs-guides.py [--check]   (--check: convert in memory, write nothing)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
OUT = os.path.join(ROOT, "Sources", "GRDBCipher", "GRDBCipher.docc", "Guides")

LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def outside_fences(text):
    """Yields (is_code, line) for each line of a Markdown text."""
    in_code = False
    for line in text.split("\n"):
        if FENCE.match(line):
            yield True, line
            in_code = not in_code
        else:
            yield in_code, line


def github_slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to dashes."""
    text = re.sub(r"[`*_]", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def docc_fragment(heading):
    """The fragment DocC gives a heading: its plain text, spaces to dashes."""
    text = re.sub(r"[`*]", "", heading).strip()
    text = re.sub(r"[^\w\- ]", "", text)
    return re.sub(r"\s+", "-", text)


def headings(text):
    """Maps each GitHub anchor of a guide to DocC's fragment for the same heading."""
    anchors = {}
    for in_code, line in outside_fences(text):
        match = None if in_code else re.match(r"^#{2,6}\s+(.*)$", line)
        if match:
            anchors.setdefault(github_slug(match.group(1)), docc_fragment(match.group(1)))
    return anchors


def convert(name, text, anchors_by_guide, problems):
    def link(match):
        label, target = match.group(1), match.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, doc:
            return match.group(0)
        path, _, anchor = target.partition("#")
        guide = name if path == "" else os.path.splitext(os.path.basename(path))[0]
        if path == "" or (path.endswith(".md") and os.path.dirname(path) in ("", ".", "../docs")
                          and guide in anchors_by_guide):
            fragment = ""
            if anchor:
                fragment = anchors_by_guide[guide].get(anchor)
                if fragment is None:
                    problems.append(f"docs/{name}.md: no heading for the link {target}")
                    fragment = anchor
                fragment = "#" + fragment
            if label.strip("`") == path:  # [Other.md](Other.md): DocC shows the article's title
                return f"<doc:{guide}{fragment}>"
            return f"[{label}](<doc:{guide}{fragment}>)"
        # A file of the repository: the site does not hold it, so name it.
        repo_path = os.path.normpath(os.path.join("docs", path))
        return f"{label} (`{repo_path}`)" if label.strip("`") != repo_path else f"`{repo_path}`"

    lines = []
    for in_code, line in outside_fences(text):
        lines.append(line if in_code else LINK.sub(link, line))
    source = f"docs/{name}.md"
    lines.append(f"<!-- Generated from {source} by scripts/docs-guides.py: edit {source}. -->")
    return "\n".join(lines)


def main():
    check = "--check" in sys.argv[1:]
    guides = {}
    for file in sorted(os.listdir(DOCS)):
        if file.endswith(".md"):
            with open(os.path.join(DOCS, file), encoding="utf-8") as handle:
                guides[file[:-3]] = handle.read()
    anchors_by_guide = {name: headings(text) for name, text in guides.items()}
    problems = []
    converted = {name: convert(name, text, anchors_by_guide, problems) for name, text in guides.items()}
    for problem in problems:
        print(f"docs-guides: error: {problem}", file=sys.stderr)
    if problems:
        return 1
    if check:
        return 0
    os.makedirs(OUT, exist_ok=True)
    for old in os.listdir(OUT):
        if old.endswith(".md") and old[:-3] not in converted:
            os.remove(os.path.join(OUT, old))
    for name, text in converted.items():
        path = os.path.join(OUT, name + ".md")
        try:
            with open(path, encoding="utf-8") as handle:
                if handle.read() == text:
                    continue
        except FileNotFoundError:
            pass
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    print(f"docs-guides: {len(converted)} guides from docs/ into {os.path.relpath(OUT, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
