#!/usr/bin/env python3
"""The load figure of the EncryptedNotes example (docs/Performance.md, "A service under load"):
requests per second and latency percentiles for a read-mostly mix (scripts/load-mix.lua: 10%
create, 45% list, 45% search) at 16 concurrent connections, on loopback, against the same
release build of the server on an encrypted and on a plaintext database, alternately, in one
run. A benchmark, not a test: `make load-test` runs it; CI does not.

Each round starts a fresh server on a fresh database seeded with the same notes (LOAD_USERS
users with LOAD_NOTES notes each, words from a seeded vocabulary), runs wrk for LOAD_SECONDS,
and stops the server. The table reports each round and the median per mode.
"""

import os
import random
import re
import shutil
import statistics
import string
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(__file__))
from importlib import import_module

example = import_module("example-test")

SERVER = sys.argv[1] if len(sys.argv) > 1 else "Examples/EncryptedNotes/.build/release/encrypted-notes"
USERS = int(os.environ.get("LOAD_USERS", "16"))
NOTES = int(os.environ.get("LOAD_NOTES", "200"))
SECONDS = int(os.environ.get("LOAD_SECONDS", "20"))
CONNECTIONS = int(os.environ.get("LOAD_CONNECTIONS", "16"))
ROUNDS = int(os.environ.get("LOAD_ROUNDS", "2"))
example.SERVER = SERVER
LUA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "load-mix.lua")


def vocabulary():
    rng = random.Random(37)
    return ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randrange(4, 9))) for _ in range(400)]


def seed(server, words):
    rng = random.Random(38)
    notes = [(user, " ".join(rng.choice(words) for _ in range(2)), " ".join(rng.choice(words) for _ in range(30)))
             for user in range(1, USERS + 1) for _ in range(NOTES)]
    for user in range(1, USERS + 1):
        status, _ = server.request("POST", "/users", {"name": f"user{user}"})
        assert status == 201, status
    chunks = [notes[i::4] for i in range(4)]

    def post(chunk):
        for user, title, body in chunk:
            status, _ = server.request("POST", f"/users/{user}/notes", {"title": title, "body": body})
            assert status == 201, status

    threads = [threading.Thread(target=post, args=(chunk,)) for chunk in chunks]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def milliseconds(text):
    value, unit = re.match(r"([\d.]+)(us|ms|s)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def run_round(mode, words_file, words):
    directory = tempfile.mkdtemp(prefix=f"notes-load-{mode}-")
    try:
        key = os.path.join(directory, "key")
        with open(os.open(key, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write("load test key " + "".join(random.choice(string.ascii_letters) for _ in range(32)) + "\n")
        extra = []
        if mode == "encrypted":
            subprocess.run([SERVER, "init", "--database", os.path.join(directory, "notes.db"), "--key-file", key],
                           check=True, stdout=subprocess.DEVNULL)
        else:
            extra = ["--plaintext-for-benchmarks"]
        extra += os.environ.get("LOAD_SERVER_ARGS", "").split()
        # The server on one core, wrk on the other: the figure is the server's, not the
        # scheduler's.
        server = example.Server(directory, "--log-level", "warning", *extra, prefix=["taskset", "-c", "0"])
        seed(server, words)
        env = dict(os.environ, LOAD_WORDS=words_file, LOAD_USERS=str(USERS))
        output = subprocess.run(
            ["taskset", "-c", "1", "wrk", "-t1", f"-c{CONNECTIONS}", f"-d{SECONDS}s", "--latency", "-s", LUA, f"http://127.0.0.1:{server.port}"],
            env=env, capture_output=True, text=True, check=True).stdout
        code = server.stop()
        size = os.path.getsize(os.path.join(directory, "notes.db"))
        rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
        p50 = milliseconds(re.search(r"^\s+50%\s+(\S+)\s*$", output, re.M).group(1))
        p99 = milliseconds(re.search(r"^\s+99%\s+(\S+)\s*$", output, re.M).group(1))
        errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
        socket_errors = re.search(r"Socket errors: (.*)", output)
        return {"mode": mode, "rps": rps, "p50": p50, "p99": p99,
                "errors": int(errors.group(1)) if errors else 0,
                "socket_errors": socket_errors.group(1) if socket_errors else "none",
                "exit": code, "size": size}
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def main():
    words = vocabulary()
    words_file = tempfile.NamedTemporaryFile("w", suffix=".words", delete=False)
    words_file.write("\n".join(words) + "\n")
    words_file.close()
    print(f"load test: {SERVER}; {USERS} users x {NOTES} notes; wrk, {CONNECTIONS} connections, {SECONDS} s, "
          f"{ROUNDS} rounds per mode; mix: 10% create, 45% list, 45% search")
    results = []
    for _ in range(ROUNDS):
        for mode in ["encrypted", "plaintext"]:
            result = run_round(mode, words_file.name, words)
            results.append(result)
            print(f"  {mode:9}  {result['rps']:8.0f} req/s  p50 {result['p50']:6.2f} ms  p99 {result['p99']:6.2f} ms  "
                  f"non-2xx {result['errors']}  socket errors {result['socket_errors']}  exit {result['exit']}  "
                  f"database {result['size'] // 1024} KiB", flush=True)
    os.unlink(words_file.name)
    print()
    print("| mode | requests/s | p50 | p99 |")
    print("|---|---:|---:|---:|")
    medians = {}
    for mode in ["encrypted", "plaintext"]:
        rounds = [r for r in results if r["mode"] == mode]
        medians[mode] = statistics.median(r["rps"] for r in rounds)
        print(f"| {mode} | {medians[mode]:.0f} | {statistics.median(r['p50'] for r in rounds):.2f} ms | "
              f"{statistics.median(r['p99'] for r in rounds):.2f} ms |")
    cost = 1 - medians["encrypted"] / medians["plaintext"]
    print(f"\nencryption costs {cost * 100:.1f}% of the throughput (goal: under 15%)")
    if any(r["errors"] or r["exit"] != 0 for r in results):
        print("load test: some requests failed or a server did not stop gracefully")
        sys.exit(1)


if __name__ == "__main__":
    main()
