#!/usr/bin/env python3
"""Drives the EncryptedNotes example (Examples/EncryptedNotes) as its users would: the real
server on 127.0.0.1 and a free port, over real HTTP. `make example-test` builds the server
once and runs this; docs/Service.md describes the example.

Checks, in order:
1. the keyring is made (`encrypted-notes init`) from a key file; the server starts on a free
   port, and /health answers;
2. users and notes are created, listed, fetched, searched (full-text, prefixes, per user), and
   bad requests get 400, 404 or 409;
3. a server-sent-event client sees a note that another request creates;
4. an online backup is made (encrypted, verified by the server);
5. the database, WAL and backup bytes on disk contain none of the notes' words, while the
   server runs and after it stops;
6. SIGTERM with an event stream open stops the server gracefully (exit 0, within a bound);
7. `encrypted-notes restore` puts the backup back: the notes made before it are there, the
   note made after it is not;
8. kill -9 during a burst of concurrent writes, restart: every acknowledged note is there.
"""

import http.client
import json
import os
import random
import shutil
import signal
import string
import subprocess
import sys
import tempfile
import threading
import time

SERVER = sys.argv[1] if len(sys.argv) > 1 else "Examples/EncryptedNotes/.build/debug/encrypted-notes"
SEED = int(os.environ.get("EXAMPLE_TEST_SEED", str(random.randrange(1 << 30))))
rng = random.Random(SEED)
failures = []


def check(condition, message):
    if condition:
        print(f"  ok: {message}")
    else:
        print(f"  FAILED: {message}")
        failures.append(message)
    return condition


def word():
    """A word no file would hold by chance."""
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(10))


class Server:
    def __init__(self, directory, *extra, prefix=()):
        self.directory = directory
        self.port_file = os.path.join(directory, "port")
        if os.path.exists(self.port_file):
            os.unlink(self.port_file)
        self.log = open(os.path.join(directory, "server.log"), "a")
        self.process = subprocess.Popen(
            [*prefix, SERVER, "serve", "--database", os.path.join(directory, "notes.db"),
             "--key-file", os.path.join(directory, "key"), "--port", "0",
             "--port-file", self.port_file, "--backups", os.path.join(directory, "backups"), *extra],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while not os.path.exists(self.port_file) or not open(self.port_file).read().strip():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the server did not start (see {self.log.name})")
            time.sleep(0.05)
        self.port = int(open(self.port_file).read())

    def request(self, method, path, body=None, timeout=30):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            headers = {}
            data = None
            if body is not None:
                data = json.dumps(body).encode()
                headers["Content-Type"] = "application/json"
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            text = response.read().decode()
            try:
                payload = json.loads(text) if text else None
            except ValueError:
                payload = text
            return response.status, payload
        finally:
            connection.close()

    def stop(self, sig=signal.SIGTERM, timeout=30):
        self.process.send_signal(sig)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None


class EventStream(threading.Thread):
    """Reads `GET .../stream` and keeps each event's notes."""

    def __init__(self, port, user):
        super().__init__(daemon=True)
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.connection.request("GET", f"/users/{user}/notes/stream")
        self.response = self.connection.getresponse()
        self.events = []
        self.ended = threading.Event()
        self.changed = threading.Condition()
        self.start()

    def run(self):
        data = []
        try:
            while True:
                line = self.response.fp.readline()
                if not line:
                    break
                line = line.decode().rstrip("\r\n")
                if line.startswith("data: "):
                    data.append(line[6:])
                elif line == "" and data:
                    with self.changed:
                        self.events.append(json.loads("".join(data))["notes"])
                        self.changed.notify_all()
                    data = []
        except (OSError, ValueError):
            pass
        self.ended.set()

    def wait_for(self, predicate, timeout=10):
        deadline = time.monotonic() + timeout
        with self.changed:
            while not any(predicate(event) for event in self.events):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self.changed.wait(remaining)
            return True


def files_holding(directory, words):
    """The files under `directory` (databases, WALs, backups) whose bytes hold one of `words`."""
    found = []
    for root, _, names in os.walk(directory):
        for name in names:
            if not (".db" in name):
                continue
            path = os.path.join(root, name)
            content = open(path, "rb").read()
            for w in words:
                if w.encode() in content:
                    found.append(f"{path}: {w}")
    return found


def database_files(directory):
    return sorted(name for name in os.listdir(directory) if name.startswith("notes.db"))


def main():
    print(f"example test: {SERVER}, seed {SEED}")
    directory = tempfile.mkdtemp(prefix="encrypted-notes-")
    key = os.path.join(directory, "key")
    with open(os.open(key, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
        f.write("".join(rng.choice(string.ascii_letters + string.digits) for _ in range(40)) + "\n")
    database = os.path.join(directory, "notes.db")
    subprocess.run([SERVER, "init", "--database", database, "--key-file", key], check=True)

    print("1. start")
    server = Server(directory)
    status, health = server.request("GET", "/health")
    check(status == 200 and health.startswith("healthy"), f"GET /health: {status} {health!r}")

    print("2. create, list, fetch, search, bad requests")
    status, alice = server.request("POST", "/users", {"name": "alice"})
    check(status == 201 and alice["name"] == "alice", f"POST /users alice: {status}")
    status, bob = server.request("POST", "/users", {"name": "bob"})
    check(status == 201, f"POST /users bob: {status}")
    status, _ = server.request("POST", "/users", {"name": "alice"})
    check(status == 409, f"a taken name: 409 (got {status})")
    status, _ = server.request("POST", "/users", {"name": "  "})
    check(status == 400, f"an empty name: 400 (got {status})")
    words = []
    alice_notes = []
    for _ in range(5):
        title, body = word(), f"{word()} {word()} and {word()}"
        words += [title] + [w for w in body.split() if w != "and"]
        status, note = server.request("POST", f"/users/{alice['id']}/notes", {"title": title, "body": body})
        check(status == 201 and note["title"] == title and note["author"] == "alice", f"POST a note of alice: {status}")
        alice_notes.append(note)
    bob_word = word()
    words.append(bob_word)
    status, bob_note = server.request("POST", f"/users/{bob['id']}/notes", {"title": "shopping", "body": bob_word})
    check(status == 201 and bob_note["author"] == "bob", f"POST a note of bob: {status}")
    status, _ = server.request("POST", "/users/999999/notes", {"title": "x", "body": "y"})
    check(status == 404, f"a note of no user: 404 (got {status})")
    status, _ = server.request("POST", f"/users/{alice['id']}/notes", {"title": "", "body": "y"})
    check(status == 400, f"an empty title: 400 (got {status})")
    status, _ = server.request("POST", f"/users/{alice['id']}/notes", {"title": "no body"})
    check(status == 400, f"a note without a body: 400 (got {status})")

    status, listing = server.request("GET", f"/users/{alice['id']}/notes")
    check(status == 200 and [n["id"] for n in listing["notes"]] == [n["id"] for n in reversed(alice_notes)],
          "GET the notes of alice: hers, newest first")
    status, one = server.request("GET", f"/users/{alice['id']}/notes/{alice_notes[2]['id']}")
    check(status == 200 and one == alice_notes[2], "GET one note")
    status, _ = server.request("GET", f"/users/{alice['id']}/notes/{bob_note['id']}")
    check(status == 404, f"GET a note of another user: 404 (got {status})")

    target = alice_notes[3]
    body_word = target["body"].split()[1]
    status, found = server.request("GET", f"/users/{alice['id']}/notes/search?q={body_word}")
    check(status == 200 and [n["id"] for n in found["notes"]] == [target["id"]], "search a word of a body")
    status, found = server.request("GET", f"/users/{alice['id']}/notes/search?q={target['title'][:5]}")
    check(status == 200 and target["id"] in [n["id"] for n in found["notes"]], "search a prefix of a title")
    status, found = server.request("GET", f"/users/{alice['id']}/notes/search?q={bob_word}")
    check(status == 200 and found["notes"] == [], "search does not find another user's notes")
    status, found = server.request("GET", f"/users/{bob['id']}/notes/search?q={bob_word}")
    check(status == 200 and [n["id"] for n in found["notes"]] == [bob_note["id"]], "bob finds his note")
    status, found = server.request("GET", f"/users/{alice['id']}/notes/search?q=%22%29%28*")
    check(status == 200 and found["notes"] == [], f"search with FTS5 syntax characters: no match, no error ({status})")
    status, _ = server.request("GET", f"/users/{alice['id']}/notes/search")
    check(status == 400, f"search without a query: 400 (got {status})")

    print("3. server-sent events")
    stream = EventStream(server.port, alice["id"])
    check(stream.wait_for(lambda notes: len(notes) == 5), "the stream starts with the 5 notes of alice")
    live_title = word()
    words.append(live_title)
    status, live = server.request("POST", f"/users/{alice['id']}/notes", {"title": live_title, "body": "made while streaming"})
    check(status == 201, "POST a note while the stream is open")
    check(stream.wait_for(lambda notes: notes and notes[0]["id"] == live["id"]),
          "the stream delivers the note another request created")
    other = EventStream(server.port, bob["id"])
    check(other.wait_for(lambda notes: len(notes) == 1), "bob's stream shows his note only")

    print("4. online backup")
    status, report = server.request("POST", "/backups")
    check(status == 201 and report["isEncrypted"] and os.path.exists(report["path"]),
          f"POST /backups: {status}, {report.get('pageCount') if isinstance(report, dict) else report} pages")
    backup_path = report["path"]
    status, _ = server.request("POST", "/users", {"name": "carol"})
    after_word = word()
    words.append(after_word)
    status, after = server.request("POST", f"/users/{alice['id']}/notes", {"title": after_word, "body": "after the backup"})
    check(status == 201, "a note after the backup")

    print("5. bytes on disk, while serving")
    check(os.path.getsize(database + "-wal") > 0, "the WAL holds pages")
    leaks = files_holding(directory, words)
    check(not leaks, f"no note word in {database_files(directory)} or the backup" + (f": {leaks[:3]}" if leaks else ""))

    print("6. graceful shutdown with event streams open")
    start = time.monotonic()
    code = server.stop(signal.SIGTERM, timeout=30)
    elapsed = time.monotonic() - start
    check(code == 0, f"SIGTERM: exit status {code} after {elapsed:.2f} s")
    check(elapsed < 15, "the server stopped within 15 s")
    check(stream.ended.wait(5) and other.ended.wait(5), "the event streams ended")
    log = open(os.path.join(directory, "server.log")).read()
    check("database closed" in log, "the log says the database closed")
    leaks = files_holding(directory, words)
    check(not leaks, "no note word on disk after the shutdown" + (f": {leaks[:3]}" if leaks else ""))
    check(open(key).read().strip() not in log, "the log does not hold the key")

    print("7. restore the backup")
    wrong_key = os.path.join(directory, "wrong-key")
    with open(os.open(wrong_key, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
        f.write("not the key of this keyring\n")
    before = {name: open(os.path.join(directory, name), "rb").read() for name in database_files(directory)}
    result = subprocess.run([SERVER, "restore", "--database", database, "--backup", backup_path, "--key-file", wrong_key],
                            capture_output=True, text=True)
    after_files = {name: open(os.path.join(directory, name), "rb").read() for name in database_files(directory)}
    check(result.returncode != 0 and before == after_files,
          f"a restore with a wrong key fails and changes no file: {result.stderr.strip()}")
    result = subprocess.run([SERVER, "restore", "--database", database, "--backup", backup_path, "--key-file", key],
                            capture_output=True, text=True)
    check(result.returncode == 0, f"encrypted-notes restore: {result.returncode} {result.stdout.strip()} {result.stderr.strip()}")
    check(any(".replaced-" in name for name in os.listdir(directory)), "the replaced database is kept aside")
    server = Server(directory)
    status, listing = server.request("GET", f"/users/{alice['id']}/notes")
    ids = [n["id"] for n in listing["notes"]]
    check(live["id"] in ids and alice_notes[0]["id"] in ids, "the notes made before the backup are back")
    check(after["id"] not in ids, "the note made after the backup is not")
    status, found = server.request("GET", f"/users/{alice['id']}/notes/search?q={body_word}")
    check(status == 200 and [n["id"] for n in found["notes"]] == [target["id"]], "search works on the restored database")
    status, _ = server.request("POST", f"/users/{alice['id']}/notes", {"title": "restored", "body": "writes again"})
    check(status == 201, "the restored database takes writes")
    missing_backup = backup_path + ".missing"
    wrong = subprocess.run([SERVER, "restore", "--database", database, "--backup", missing_backup, "--key-file", key],
                           capture_output=True, text=True)
    check(wrong.returncode != 0 and not os.path.exists(missing_backup),
          f"restoring a missing backup fails and creates nothing: {wrong.stderr.strip()}")

    print("8. kill -9 during a burst of writes")
    status, dave = server.request("POST", "/users", {"name": "dave"})
    acknowledged = []
    burst_words = []
    lock = threading.Lock()
    stop = threading.Event()

    def writer(index):
        n = 0
        while not stop.is_set():
            title = f"burst {index} {n}"
            with lock:
                body = word()
                burst_words.append(body)
            try:
                status, note = server.request("POST", f"/users/{dave['id']}/notes", {"title": title, "body": body}, timeout=5)
            except OSError:
                return
            if status == 201:
                with lock:
                    acknowledged.append((note["id"], title))
            n += 1

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    time.sleep(1.5 + rng.random())
    server.process.kill()
    server.process.wait()
    stop.set()
    for thread in threads:
        thread.join()
    with lock:
        acknowledged_now = list(acknowledged)
    check(len(acknowledged_now) > 20, f"{len(acknowledged_now)} notes acknowledged before the kill")
    server = Server(directory)
    missing = []
    for note_id, title in acknowledged_now:
        status, note = server.request("GET", f"/users/{dave['id']}/notes/{note_id}")
        if status != 200 or note["title"] != title:
            missing.append((note_id, title, status))
    check(not missing, f"every acknowledged note is there after the restart" + (f": missing {missing[:5]}" if missing else ""))
    status, health = server.request("GET", "/health")
    check(status == 200, f"healthy after the restart: {health!r}")
    check(server.stop() == 0, "the restarted server stops gracefully")
    words += burst_words
    leaks = files_holding(directory, words)
    check(not leaks, "no note word on disk at the end" + (f": {leaks[:3]}" if leaks else ""))

    print("9. control: the same scan finds the words of a plaintext database")
    plain = os.path.join(directory, "plaintext")
    os.mkdir(plain)
    shutil.copy(key, os.path.join(plain, "key"))
    server = Server(plain, "--plaintext-for-benchmarks")
    server.request("POST", "/users", {"name": "eve"})
    plain_word = word()
    status, _ = server.request("POST", "/users/1/notes", {"title": plain_word, "body": "plaintext"})
    check(status == 201 and files_holding(plain, [plain_word]), "the scan sees a word of a plaintext note on disk")
    check(server.stop() == 0, "the plaintext server stops gracefully")

    if failures:
        print(f"example test: {len(failures)} FAILED (seed {SEED}; files kept in {directory})")
        sys.exit(1)
    shutil.rmtree(directory)
    print("example test: all passed")


if __name__ == "__main__":
    main()
