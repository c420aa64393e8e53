#!/usr/bin/env python3
"""Prints the documentation coverage of GRDBCipher's public API, from DocC's own figures.

`make docs` runs DocC with --experimental-documentation-coverage, which writes
documentation-coverage.json into the site folder: one entry per page, with `hasAbstract` for
symbols. This script counts the symbols whose page has a summary (an abstract), prints the
figure, and with --list names the ones that have none.

Members that a type inherits from the standard library (`Row.sorted(by:)`, `!=`) count too:
DocC shows the standard library's summary for them (`--enable-inherited-docs`).

Usage: scripts/docs-coverage.py [SITE] [--list] [--require PERCENT]
"""
import argparse
import json
import os
import sys


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
    missing = sorted(e["referencePath"].split("/documentation/", 1)[-1]
                     for e in symbols if not e["hasAbstract"])
    documented = len(symbols) - len(missing)
    percent = 100.0 * documented / len(symbols) if symbols else 100.0
    if args.list:
        for reference in missing:
            print(reference)
    shown = f"{percent:.1f}" if missing else "100"
    print(f"Documentation coverage: {shown}% of public symbols have a summary "
          f"({documented} of {len(symbols)}; {len(missing)} without)")
    if args.require is not None and percent < args.require:
        print(f"docs-coverage: below the required {args.require:g}% (--list names them)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
