#!/usr/bin/env python3
"""Prints the documentation coverage of GRDBCipher's public API, from DocC's own figures.

`make docs` runs DocC with --experimental-documentation-coverage, which writes
documentation-coverage.json into the site folder: one entry per page, with `hasAbstract` for
symbols. This script counts the symbols whose page has a summary (an abstract), prints the
figure, and with --list names the ones that have none.

Two figures are printed. The first, which --require checks, counts the symbols that GRDBCipher
declares, with the members they give to conforming types (`Table.filter(_:)` from
`FilteredRequest`): every one needs a summary in our sources or the catalog. The second counts
every page of the site, including members inherited from other modules: DocC shows the summary
of the standard library or Foundation for most (`--enable-inherited-docs`), but has none for some
(`hash(into:)` of an enum with a raw value, `Sequence.formatted(_:)`), and we cannot write one
without code of our own.

Usage: scripts/docs-coverage.py [SITE] [--list] [--require PERCENT]
"""
import argparse
import json
import os
import sys


def reference(entry):
    return entry["referencePath"].split("/documentation/", 1)[-1]


def declared_by_us(site, entry):
    """Whether GRDBCipher declares the symbol (its own, or a default implementation of one of its
    protocols shown on a conforming type), from the page's precise identifier."""
    page = os.path.join(site, "data", "documentation", reference(entry).lower() + ".json")
    try:
        with open(page, encoding="utf-8") as handle:
            identifier = json.load(handle).get("metadata", {}).get("externalID", "")
    except (FileNotFoundError, ValueError):
        return True  # Unknown: count it as ours.
    declaration = identifier.split("::SYNTHESIZED::")[0]
    return not declaration or "10GRDBCipher" in declaration


def main():
    parser = argparse.ArgumentParser(description="GRDBCipher's documentation coverage, from DocC.")
    parser.add_argument("site", nargs="?", default=".docs-site", help="the folder `make docs` wrote")
    parser.add_argument("--list", action="store_true", help="name the symbols without a summary")
    parser.add_argument("--require", type=float, help="fail below this percentage")
    args = parser.parse_args()
    path = os.path.join(args.site, "documentation-coverage.json")
    try:
        with open(path, encoding="utf-8") as handle:
            entries = json.load(handle)
    except FileNotFoundError:
        print(f"docs-coverage: no {path}: run `make docs` first", file=sys.stderr)
        return 2
    symbols = [e for e in entries if e["kind"]["isSymbol"]]
    ours = [e for e in symbols if declared_by_us(args.site, e)]

    def figure(group):
        missing = sorted(reference(e) for e in group if not e["hasAbstract"])
        percent = 100.0 * (len(group) - len(missing)) / len(group) if group else 100.0
        shown = f"{percent:.1f}" if missing else "100"
        return percent, missing, f"{shown}% ({len(group) - len(missing)} of {len(group)}; {len(missing)} without)"

    percent, missing, text = figure(ours)
    _, all_missing, all_text = figure(symbols)
    if args.list:
        for name in missing:
            print(name)
    print(f"Documentation coverage: {text} of the public symbols GRDBCipher declares have a summary")
    print(f"All symbol pages, with members inherited from other modules: {all_text}")
    if args.require is not None and percent < args.require:
        print(f"docs-coverage: below the required {args.require:g}% (--list names them)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
