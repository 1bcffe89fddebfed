#!/usr/bin/env python3
"""Real-browser test of the coordinator's live page.

Drives headless Chromium over the DevTools protocol on --remote-debugging-pipe (fds 3 and 4,
NUL-separated JSON), because --dump-dom cannot wait for data arriving on a never-ending
server-sent event stream. Checks that the page shows the given workers and job, that the job's
percentage moves between two loads, and saves a screenshot.

    python3 Tests/browser/dashboard_test.py --url http://127.0.0.1:PORT/ --workers w1,w2 \
        --job-source /path/src --screenshot OUT.png

Standard library only; exits non-zero with a message on any failure.
"""
import argparse
import base64
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
from html.parser import HTMLParser

PERCENT = re.compile(r"^\d+(\.\d)?%$")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Failure(Exception):
    pass


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def walk(self):
        for c in self.children:
            if isinstance(c, Node):
                yield c
                yield from c.walk()

    def find(self, pred):
        return [n for n in self.walk() if pred(n)]

    def has_class(self, name):
        return name in (self.attrs.get("class") or "").split()


class TreeBuilder(HTMLParser):
    """A small DOM from the serialized document (Chromium's serialization is well formed)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", [], None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.cur)
        self.cur.children.append(node)
        if tag not in VOID:
            self.cur = node

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def parse(html):
    b = TreeBuilder()
    b.feed(html)
    b.close()
    return b.root


def inspect(html, workers, source):
    """What the test needs from one rendered DOM: shown worker ids, and the job's (id, percent text)."""
    root = parse(html)
    shown = {n.attrs.get("data-worker-id") for n in root.find(lambda n: n.tag == "tr" and "data-worker-id" in n.attrs)}
    jobs = [n for n in root.find(lambda n: n.tag == "article" and n.has_class("job")) if source in n.text()]
    # Prefer the running one: a source may also appear in an earlier, ended job.
    jobs.sort(key=lambda n: n.attrs.get("data-state") != "running")
    job = None
    if jobs:
        pcts = jobs[0].find(lambda n: n.has_class("job-percent"))
        job = (jobs[0].attrs.get("data-job-id"), jobs[0].attrs.get("data-state"), pcts[0].text().strip() if pcts else None)
    return {"missing": [w for w in workers if w not in shown], "job": job, "root": root}


def ready(info):
    return not info["missing"] and info["job"] is not None and info["job"][2] is not None and PERCENT.match(info["job"][2])


class Browser:
    """Headless Chromium spoken to over --remote-debugging-pipe."""

    def __init__(self, binary, deadline, width, height):
        self.deadline = deadline
        self.tmp = tempfile.mkdtemp(prefix="squeeze-dash-")
        self.proc = None
        self.next_id = 0
        self.buffer = b""
        self.events = []
        cmd_r, self.cmd_w = os.pipe()
        self.res_r, res_w = os.pipe()

        def child_fds():  # Chromium reads commands on fd 3 and writes replies on fd 4.
            a, b = os.dup(cmd_r), os.dup(res_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        args = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                "--disable-component-update", "--mute-audio", "--hide-scrollbars",
                "--remote-debugging-pipe", "--user-data-dir=" + os.path.join(self.tmp, "profile"),
                "--window-size=%d,%d" % (width, height), "about:blank"]
        self.log = open(os.path.join(self.tmp, "chromium.log"), "wb")
        try:
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                                         preexec_fn=child_fds, start_new_session=True,
                                         close_fds=False)  # closing would run after child_fds; Python's fds are not inherited
        except OSError:
            self.close()
            raise
        finally:
            os.close(cmd_r)
            os.close(res_w)

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.send("Browser.close", timeout=3)
            except (Failure, OSError):
                pass
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                pass
        if self.proc is not None:
            # Chromium runs in its own session (pgid = its pid): this also ends renderer and helper leftovers.
            try:
                os.killpg(self.proc.pid, 9)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        for fd in (self.cmd_w, self.res_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def log_tail(self):
        try:
            with open(os.path.join(self.tmp, "chromium.log"), "rb") as f:
                return f.read()[-1500:].decode(errors="replace")
        except OSError:
            return ""

    def _read_message(self, until):
        while b"\0" not in self.buffer:
            left = min(until, self.deadline) - time.monotonic()
            if left <= 0:
                raise Failure("timed out waiting for Chromium")
            r, _, _ = select.select([self.res_r], [], [], left)
            if r:
                chunk = os.read(self.res_r, 1 << 20)
                if not chunk:
                    raise Failure("Chromium exited unexpectedly:\n" + self.log_tail())
                self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(raw)

    def send(self, method, params=None, session=None, timeout=15):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        while data:
            data = data[os.write(self.cmd_w, data):]
        until = time.monotonic() + timeout
        while True:
            reply = self._read_message(until)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise Failure("%s failed: %s" % (method, reply["error"].get("message")))
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def pump(self, seconds):
        """Collects events (console errors) while waiting."""
        until = time.monotonic() + seconds
        try:
            while True:
                self.events.append(self._read_message(until))
        except Failure as e:
            if "timed out" not in str(e) or time.monotonic() >= self.deadline:
                raise


class Page:
    def __init__(self, browser, width, height):
        self.b = browser
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.s = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for m in ("Page.enable", "Runtime.enable"):
            browser.send(m, session=self.s)
        browser.send("Emulation.setDeviceMetricsOverride",
                     {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=self.s)

    def navigate(self, url):
        r = self.b.send("Page.navigate", {"url": url}, session=self.s)
        if r.get("errorText"):
            raise Failure("cannot load %s: %s" % (url, r["errorText"]))

    def html(self):
        r = self.b.send("Runtime.evaluate", {"expression": "document.documentElement.outerHTML", "returnByValue": True},
                        session=self.s)
        return r.get("result", {}).get("value") or ""

    def screenshot(self, path):
        data = self.b.send("Page.captureScreenshot", {"format": "png"}, session=self.s, timeout=30)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def errors(self):
        out = []
        for e in self.b.events:
            if e.get("sessionId") != self.s:
                continue
            p = e.get("params", {})
            if e.get("method") == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append((d.get("exception", {}).get("description") or d.get("text") or "exception").splitlines()[0])
            elif e.get("method") == "Runtime.consoleAPICalled" and p.get("type") == "error":
                out.append("console.error: " + " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
        return out


def wait_for(page, workers, source, until, accept, what):
    """Polls the rendered DOM until accept(info) or the time runs out; returns the last info."""
    info = None
    while True:
        info = inspect(page.html(), workers, source)
        if accept(info):
            return info
        if time.monotonic() >= until:
            if info["missing"]:
                raise Failure("%s: no row with data-worker-id for %s" % (what, ", ".join(info["missing"])))
            if info["job"] is None:
                raise Failure("%s: no job article whose text includes %r" % (what, source))
            raise Failure("%s: job #%s percent is %r" % (what, info["job"][0], info["job"][2]))
        page.b.pump(0.25)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", required=True, help="the coordinator page, e.g. http://127.0.0.1:8080/")
    ap.add_argument("--workers", required=True, help="comma-separated worker ids that must be shown")
    ap.add_argument("--job-source", required=True, help="source of a running job that must be shown")
    ap.add_argument("--screenshot", required=True, help="PNG path to write")
    ap.add_argument("--chromium", default=os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
                    or shutil.which("google-chrome") or "chromium")
    ap.add_argument("--size", default="1280,900", help="window size, WIDTH,HEIGHT")
    ap.add_argument("--timeout", type=float, default=90, help="bound for the whole run, seconds")
    ap.add_argument("--change-timeout", type=float, default=20, help="how long the percentage may take to change")
    ap.add_argument("--dump-dom", help="also write the last rendered DOM here")
    a = ap.parse_args()
    workers = [w for w in a.workers.split(",") if w]
    width, height = (int(x) for x in a.size.split(","))
    started = time.monotonic()
    deadline = started + a.timeout
    browser = None
    try:
        browser = Browser(a.chromium, deadline, width, height)
        page = Page(browser, width, height)
        page.navigate(a.url)
        first = wait_for(page, workers, a.job_source, min(deadline, time.monotonic() + 20), ready, "first load")
        job_id, _, pct1 = first["job"]
        # The second load: the same job must have moved on (it is running meanwhile).
        page.b.pump(1.5)
        page.navigate(a.url)
        second = wait_for(page, workers, a.job_source, min(deadline, time.monotonic() + a.change_timeout),
                          lambda i: ready(i) and i["job"][0] == job_id and i["job"][2] != pct1,
                          "second load (percentage must change from %s)" % pct1)
        pct2 = second["job"][2]
        os.makedirs(os.path.dirname(os.path.abspath(a.screenshot)), exist_ok=True)
        page.screenshot(a.screenshot)
        if a.dump_dom:
            with open(a.dump_dom, "w") as f:
                f.write(page.html())
        errors = page.errors()
        if errors:
            raise Failure("JavaScript errors on the page: " + "; ".join(errors[:5]))
        print("dashboard ok: workers %s shown, job #%s (%s) %s -> %s, screenshot %s (%dx%d), %.1f s" % (
            ",".join(workers), job_id, a.job_source, pct1, pct2, a.screenshot, width, height, time.monotonic() - started))
        return 0
    except Failure as e:
        print("dashboard FAILED: %s" % e, file=sys.stderr)
        return 1
    except FileNotFoundError as e:
        print("dashboard FAILED: cannot start Chromium (%s)" % e, file=sys.stderr)
        return 2
    finally:
        if browser is not None:
            browser.close()


if __name__ == "__main__":
    sys.exit(main())
