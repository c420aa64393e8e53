#!/usr/bin/env python3
"""Regenerates the fixtures described in fixtures.json with the sqlcipher command-line tool.

Each database is made by one `sqlcipher FILE` process reading, on its standard input: the
fixture's sql_before_key, the key statement built from its "key", sql_after_key, its
cli_commands, then content.sql. Damaged files are made from a fresh SQLCipher 4 file whose bytes
are then altered or truncated. Run it with `make fixtures`.
"""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def key_statement(key):
    """The PRAGMA key statement, as bytes (a binary passphrase is not valid UTF-8)."""
    if key is None:
        return b""
    if "passphrase" in key:
        return b"PRAGMA key = '" + key["passphrase"].replace("'", "''").encode("utf-8") + b"';\n"
    if "passphrase_hex" in key:
        raw = bytes.fromhex(key["passphrase_hex"])
        if b"'" in raw or b"\0" in raw:
            sys.exit("a binary passphrase for the CLI cannot hold a quote or a NUL byte")
        return b"PRAGMA key = '" + raw + b"';\n"
    if "raw_key_hex" in key:
        blob = key["raw_key_hex"] + key.get("salt_hex", "")
        return b"PRAGMA key = \"x'" + blob.encode("ascii") + b"'\";\n"
    sys.exit("unknown key kind: %r" % key)


def run_cli(path, fixture, content):
    script = b""
    script += fixture.get("sql_before_key", "").encode("utf-8") + b"\n"
    script += key_statement(fixture.get("key"))
    script += fixture.get("sql_after_key", "").encode("utf-8") + b"\n"
    for command in fixture.get("cli_commands", []):
        script += command.encode("utf-8") + b"\n"
    script += content
    result = subprocess.run(["sqlcipher", "-bail", path], input=script, capture_output=True)
    if result.returncode != 0:
        sys.exit("sqlcipher failed for %s: %s" % (path, result.stderr.decode("utf-8", "replace")))


def remove_with_sidecars(path):
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)


def main():
    if shutil.which("sqlcipher") is None:
        sys.exit("the sqlcipher command is missing: run `make deps`")
    with open(os.path.join(HERE, "fixtures.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    with open(os.path.join(HERE, manifest["content"]["sql"]), "rb") as f:
        content = f.read()

    for fixture in manifest["fixtures"]:
        path = os.path.join(HERE, fixture["file"])
        remove_with_sidecars(path)
        if "not_a_database" in fixture:
            with open(path, "wb") as f:
                f.write(fixture["not_a_database"].encode("utf-8"))
        else:
            run_cli(path, fixture, content)
        damage = fixture.get("damage")
        if damage:
            with open(path, "r+b") as f:
                data = bytearray(f.read())
                page_size = 4096
                if "alter_page" in damage:
                    start = (damage["alter_page"] - 1) * page_size + damage["offset"]
                    for i in range(start, start + damage["length"]):
                        data[i] ^= 0x5A
                if "keep_pages" in damage:
                    del data[damage["keep_pages"] * page_size:]
                f.seek(0)
                f.truncate()
                f.write(bytes(data))
        # Sidecars the manifest does not list (a -shm index) are not fixtures.
        kept = {fixture["file"]} | set(fixture.get("extra_files", []))
        for suffix in ("-wal", "-shm", "-journal"):
            name = fixture["file"] + suffix
            if name not in kept and os.path.exists(os.path.join(HERE, name)):
                os.remove(os.path.join(HERE, name))
        print("%-26s %7d bytes  %s" % (fixture["file"], os.path.getsize(path), fixture["description"]))


if __name__ == "__main__":
    main()
