#!/usr/bin/env python3
"""A regression check of the benchmarks that does not depend on the machine's load:
instructions, not seconds (docs/Performance.md, "Instruction counts").

Each workload runs in `SQLCipherBenchmarks` under callgrind, which counts the instructions of
the measured part only (`--toggle-collect` on BenchmarkSupport's `measure`): of its second run,
the steady state. The counts are
compared with `Benchmarks/baseline-instructions.json`: a count more than 3% above its baseline
fails the check. `--update` writes the baseline instead; commit it with the change that
justifies it.

    make bench-check                 # compare
    make bench-baseline              # update the baseline
    scripts/bench-check.py BIN --only W4,W5   # some workloads

Workloads whose count depends on threads or the clock (W7, W8: observations delivered on
other threads) or on OpenSSL's key derivation (OPEN, POOL, EXPORT) are left out.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
BASELINE = os.path.join(ROOT, "Benchmarks", "baseline-instructions.json")
WORKLOADS = ["W1", "W2", "W3", "W3b", "W3m", "W4", "W5", "W5b", "W5m", "W6", "W6-other", "W9", "W10", "W10m", "W11-insert", "W11-match"]
TOLERANCE = 0.03


def arguments():
    args = sys.argv[1:]
    update = "--update" in args
    args = [a for a in args if a != "--update"]
    only = None
    if "--only" in args:
        index = args.index("--only")
        only = args[index + 1].split(",")
        del args[index:index + 2]
    binary = args[0] if args else os.path.join(ROOT, "Benchmarks", ".build", "release", "SQLCipherBenchmarks")
    return binary, update, only


def benchmark_ids(binary, only):
    listed = subprocess.run([binary, "list"], capture_output=True, text=True, check=True).stdout.split("\n")
    wanted = only or WORKLOADS
    return [line for line in listed if line and line.split("/")[0] in wanted]


def start_count(binary, benchmark, runs, output):
    env = dict(os.environ, SWIFT_DETERMINISTIC_HASHING="1")
    return subprocess.Popen(
        ["valgrind", "--tool=callgrind", "--toggle-collect=*BenchmarkSupport7measure*",
         f"--callgrind-out-file={output}", binary, "run", benchmark, str(runs)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)


def read_count(process, output, benchmark):
    _, errors = process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"bench-check: {benchmark} failed:\n{errors[-2000:]}")
    text = open(output).read()
    match = re.search(r"^summary:\s+(\d+)", text, re.M) or re.search(r"^totals:\s+(\d+)", text, re.M)
    if not match:
        raise SystemExit(f"bench-check: no instruction count for {benchmark}")
    return int(match.group(1))


def instructions(binary, benchmark):
    """The instructions of the second run of `benchmark`: its first run may still warm caches
    that the library's connection warmed during its setup (the raw C connections are opened
    cold), so the second is the steady state. Callgrind counts one run and two runs, side by
    side; the difference is the second run."""
    with tempfile.TemporaryDirectory() as directory:
        one, two = os.path.join(directory, "one"), os.path.join(directory, "two")
        first = start_count(binary, benchmark, 1, one)
        both = start_count(binary, benchmark, 2, two)
        count = read_count(both, two, benchmark) - read_count(first, one, benchmark)
        if count <= 0:
            raise SystemExit(f"bench-check: {benchmark} measured nothing (is `measure` still a function of BenchmarkSupport?)")
        return count


def main():
    binary, update, only = arguments()
    if not os.path.exists(binary):
        raise SystemExit(f"bench-check: {binary} is missing: build Benchmarks in release first (make bench-check does)")
    baseline = json.load(open(BASELINE)) if os.path.exists(BASELINE) else {"counts": {}}
    counts = {}
    failures = []
    start = time.monotonic()
    print(f"{'benchmark':32} {'instructions':>15} {'baseline':>15} {'change':>8}")
    for benchmark in benchmark_ids(binary, only):
        count = instructions(binary, benchmark)
        counts[benchmark] = count
        before = baseline["counts"].get(benchmark)
        change = f"{(count / before - 1) * 100:+.2f}%" if before else "new"
        flag = ""
        if before and count > before * (1 + TOLERANCE):
            failures.append(benchmark)
            flag = "  FAILED"
        print(f"{benchmark:32} {count:15,} {before or 0:15,} {change:>8}{flag}", flush=True)
    print(f"({time.monotonic() - start:.0f} s)")
    if update:
        merged = dict(baseline.get("counts", {}))
        merged.update(counts)
        swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.split("\n")[0] \
            if subprocess.run(["which", "swift"], capture_output=True).returncode == 0 else "unknown"
        json.dump({"note": "instructions of the measured part of each benchmark, callgrind; scripts/bench-check.py --update",
                   "swift": swift, "counts": dict(sorted(merged.items()))},
                  open(BASELINE, "w"), indent=2)
        open(BASELINE, "a").write("\n")
        print(f"bench-check: baseline written ({len(counts)} counts) to {os.path.relpath(BASELINE, ROOT)}")
        return
    if failures:
        print(f"bench-check: {len(failures)} over their baseline by more than {TOLERANCE:.0%}: {', '.join(failures)}")
        sys.exit(1)
    missing = [b for b in counts if b not in baseline["counts"]]
    if missing:
        print(f"bench-check: no baseline for {', '.join(missing)} (make bench-baseline)")
        sys.exit(1)
    print(f"bench-check: {len(counts)} benchmarks within {TOLERANCE:.0%} of their baseline")


if __name__ == "__main__":
    main()
