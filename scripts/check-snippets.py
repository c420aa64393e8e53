#!/usr/bin/env python3
"""Keeps the code in the guides identical to the code that compiles.

A guide marks a code block with `<!-- snippet: SOURCE#NAME -->` on the line before its ```swift
fence. SOURCE is a Swift file of the repository, in which `// snippet: NAME` and
`// end snippet: NAME` enclose the lines the block must hold (without their common
indentation). `make example-test` (CI) runs this check; `--write` rewrites the blocks from the
sources.
"""

import os
import re
import sys
import textwrap

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
MARK = re.compile(r"<!-- snippet: (\S+?)#(\S+) -->\n```swift\n(.*?)```\n", re.S)


def region(source, name):
    lines = open(os.path.join(ROOT, source)).read().split("\n")
    starts = [i for i, line in enumerate(lines) if line.strip() == f"// snippet: {name}"]
    ends = [i for i, line in enumerate(lines) if line.strip() == f"// end snippet: {name}"]
    if len(starts) != 1 or len(ends) != 1 or ends[0] <= starts[0]:
        raise SystemExit(f"check-snippets: {source} has no single region '{name}'")
    return textwrap.dedent("\n".join(lines[starts[0] + 1:ends[0]])) + "\n"


def main():
    write = "--write" in sys.argv
    guides = [os.path.join("docs", name) for name in sorted(os.listdir(os.path.join(ROOT, "docs"))) if name.endswith(".md")]
    checked, stale = 0, []
    for guide in guides:
        path = os.path.join(ROOT, guide)
        text = open(path).read()

        def replace(match):
            nonlocal checked
            source, name, body = match.groups()
            expected = region(source, name)
            checked += 1
            if body != expected:
                stale.append(f"{guide}: {source}#{name}")
            return f"<!-- snippet: {source}#{name} -->\n```swift\n{expected}```\n"

        updated = MARK.sub(replace, text)
        markers = text.count("<!-- snippet:")
        matched = len(MARK.findall(text))
        if markers != matched:
            raise SystemExit(f"check-snippets: {guide} has {markers} snippet markers, {matched} followed by a ```swift block")
        if write and updated != text:
            open(path, "w").write(updated)
    if stale and not write:
        print("check-snippets: these blocks differ from their sources (run scripts/check-snippets.py --write):")
        for entry in stale:
            print(f"  {entry}")
        sys.exit(1)
    print(f"check-snippets: {checked} blocks" + (f", {len(stale)} rewritten" if write and stale else ", all match their sources"))


if __name__ == "__main__":
    main()
