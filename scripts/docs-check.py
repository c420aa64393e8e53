#!/usr/bin/env python3
"""Checks the built documentation site in a real browser, for `make docs-check`.

Serves the site that `make docs` wrote (.docs-site/) on 127.0.0.1, opens pages in headless
Chromium, and for each one waits until DocC's web app has rendered it, then checks the page's
title and that the browser's console has no error (a script exception, a console.error, a failed
request). Saves a screenshot of the landing page in .docs-check/landing.png (a build artifact,
not committed).

It drives Chromium through the DevTools protocol with the standard library only (a small
WebSocket client below): nothing to install but the browser (scripts/docs-deps.sh).

Usage: scripts/docs-check.py [SITE] [--artifacts DIR] [--chromium PATH]
"""
import argparse
import base64
import functools
import http.server
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

# (path, the title the page must render, what the page is)
PAGES = [
    ("/documentation/grdbcipher/", "GRDBCipher", "the landing page"),
    ("/documentation/grdbcipher/encryption/", "Encryption with GRDBCipher", "an article (docs/Encryption.md)"),
    ("/documentation/grdbcipher/databasequeue/", "DatabaseQueue", "a class"),
    ("/documentation/grdbcipher/databasekeyring/", "DatabaseKeyring", "a class of the encryption API"),
    ("/documentation/grdbcipher/database/changekey(_:)/", "changeKey(_:)", "a method"),
]
RENDER_TIMEOUT = 30.0


class WebSocket:
    """Just enough of RFC 6455 for the DevTools protocol: text frames, client-side masking."""

    def __init__(self, url):
        parts = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (f"GET {parts.path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
             "Upgrade: websocket\r\nConnection: Upgrade\r\n"
             f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self._recv()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError(f"WebSocket handshake refused: {head.decode(errors='replace')}")

    def _recv(self):
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise EOFError("the browser closed the DevTools connection")
        return chunk

    def _read(self, count):
        while len(self.buffer) < count:
            self.buffer += self._recv()
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def _send_frame(self, opcode, payload):
        header = bytearray([0x80 | opcode])
        if len(payload) < 126:
            header.append(0x80 | len(payload))
        elif len(payload) < 1 << 16:
            header.append(0x80 | 126)
            header += struct.pack("!H", len(payload))
        else:
            header.append(0x80 | 127)
            header += struct.pack("!Q", len(payload))
        mask = os.urandom(4)
        masked = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
        self.sock.sendall(bytes(header) + mask + masked)

    def send(self, text):
        self._send_frame(0x1, text.encode())

    def receive(self):
        message = b""
        while True:
            first, second = self._read(2)
            opcode, length = first & 0x0F, second & 0x7F
            if length == 126:
                length = struct.unpack("!H", self._read(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", self._read(8))[0]
            mask = self._read(4) if second & 0x80 else None
            data = self._read(length)
            if mask:
                data = bytes(byte ^ mask[index % 4] for index, byte in enumerate(data))
            if opcode == 0x8:
                raise EOFError("the browser closed the DevTools connection")
            if opcode == 0x9:
                self._send_frame(0xA, data)
                continue
            if opcode == 0xA:
                continue
            message += data
            if first & 0x80:
                return message.decode()


class DevTools:
    """A DevTools protocol session on one page: commands, and the events that arrive meanwhile."""

    def __init__(self, url):
        self.socket = WebSocket(url)
        self.next_id = 0
        self.events = []

    def call(self, method, **params):
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.receive())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")


def console_errors(events):
    """The errors among the events: exceptions, console.error and console.assert, failed loads."""
    errors = []
    for event in events:
        method, params = event["method"], event.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            text = details.get("exception", {}).get("description") or details.get("text")
            errors.append(f"exception: {text}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            texts = [arg.get("value") or arg.get("description") or "" for arg in params.get("args", [])]
            errors.append(f"console.{params['type']}: {' '.join(map(str, texts))}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            errors.append(f"{entry.get('source')}: {entry.get('text')} {entry.get('url', '')}".strip())
        elif method == "Network.loadingFailed" and not params.get("canceled"):
            errors.append(f"request failed: {params.get('errorText')}")
    return errors


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


def serve(site):
    handler = functools.partial(QuietHandler, directory=site)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def find_chromium(explicit):
    candidates = [explicit, os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"]
    for candidate in candidates:
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)
    sys.exit("docs-check: no Chromium found (run scripts/docs-deps.sh, or set CHROMIUM)")


def start_browser(chromium, profile):
    arguments = [chromium, "--headless=new", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                 "--disable-extensions", "--disable-background-networking", "--disable-sync",
                 "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
                 f"--user-data-dir={profile}", "--window-size=1280,900", "about:blank"]
    if os.geteuid() == 0:
        arguments.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox.
    browser = subprocess.Popen(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    port_file = os.path.join(profile, "DevToolsActivePort")
    deadline = time.monotonic() + 30
    while not os.path.exists(port_file) or not open(port_file).read().strip():
        if browser.poll() is not None or time.monotonic() > deadline:
            browser.kill()
            sys.exit(f"docs-check: Chromium did not start:\n{browser.stderr.read().decode(errors='replace')}")
        time.sleep(0.1)
    port = int(open(port_file).read().split()[0])
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list") as response:
        targets = json.load(response)
    page = next(target for target in targets if target.get("type") == "page")
    return browser, page["webSocketDebuggerUrl"]


def check_page(tools, base, path, title, what):
    """Loads a page and returns the problems found (empty when the page is fine)."""
    tools.events.clear()
    tools.call("Page.navigate", url=base + path)
    deadline = time.monotonic() + RENDER_TIMEOUT
    rendered = None
    while time.monotonic() < deadline:
        # DocC's web app fetches the page's JSON, then renders the title in the main <h1>.
        rendered = tools.evaluate(
            "(() => { const h = document.querySelector('main h1, h1.title, h1');"
            " return h ? h.textContent.trim() : null })()")
        if rendered == title and tools.evaluate("document.readyState") == "complete":
            break
        time.sleep(0.2)
    time.sleep(0.5)  # Late errors (a failed fetch after the first render).
    tools.evaluate("0")  # Collects the events that arrived meanwhile.
    problems = []
    document_title = tools.evaluate("document.title") or ""
    if rendered != title:
        problems.append(f"rendered title {rendered!r}, expected {title!r}")
    elif title not in document_title:
        problems.append(f"document title {document_title!r} does not name {title!r}")
    problems += console_errors(tools.events)
    status = "ok" if not problems else "FAILED"
    print(f"docs-check: {status}: {path} ({what}): {rendered!r}, document title {document_title!r}")
    return problems


def main():
    parser = argparse.ArgumentParser(description="Checks the documentation site in headless Chromium.")
    parser.add_argument("site", nargs="?", default=".docs-site")
    parser.add_argument("--artifacts", default=".docs-check")
    parser.add_argument("--chromium")
    args = parser.parse_args()
    if not os.path.exists(os.path.join(args.site, "documentation", "grdbcipher", "index.html")):
        sys.exit(f"docs-check: no site in {args.site}: run `make docs` first")
    os.makedirs(args.artifacts, exist_ok=True)

    server = serve(args.site)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    profile = tempfile.mkdtemp(prefix="grdbcipher-docs-check-")
    browser = None
    failures = 0
    try:
        browser, url = start_browser(find_chromium(args.chromium), profile)
        print(f"docs-check: serving {args.site} at {base}")
        tools = DevTools(url)
        for domain in ("Page", "Runtime", "Log", "Network"):
            tools.call(f"{domain}.enable")
        tools.call("Emulation.setDeviceMetricsOverride", width=1280, height=900, deviceScaleFactor=1, mobile=False)
        for index, (path, title, what) in enumerate(PAGES):
            problems = check_page(tools, base, path, title, what)
            for problem in problems:
                print(f"docs-check:     {problem}")
            failures += bool(problems)
            if index == 0:
                shot = tools.call("Page.captureScreenshot", format="png")
                screenshot = os.path.join(args.artifacts, "landing.png")
                with open(screenshot, "wb") as handle:
                    handle.write(base64.b64decode(shot["data"]))
                print(f"docs-check: screenshot of the landing page: {screenshot}")
    finally:
        if browser:
            browser.terminate()
            try:
                browser.wait(timeout=10)
            except subprocess.TimeoutExpired:
                browser.kill()
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)
    if failures:
        print(f"docs-check: {failures} of {len(PAGES)} pages failed", file=sys.stderr)
        return 1
    print(f"docs-check: {len(PAGES)} pages rendered, no console error")
    return 0


if __name__ == "__main__":
    sys.exit(main())
