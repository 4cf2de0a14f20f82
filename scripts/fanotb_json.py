"""Reading `fanotb --json` output, shared by the scripts that drive fanotb."""

import json
import signal
import subprocess
import threading
import time


def objects(text):
    """The JSON objects of a stream of them (progress lines, then the report, then
    a failure object if any), up to a line cut short by a kill."""
    dec, i, out = json.JSONDecoder(), 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        try:
            obj, i = dec.raw_decode(text, i)
        except json.JSONDecodeError:
            return out
        out.append(obj)


def follow(cmd, seconds=None, every=60.0, show=None):
    """Runs `cmd` (a `fanotb --json` command) in a session of its own and waits for
    it at most `seconds` (None: to its end), then stops it with one SIGTERM, after
    which fanotb reports where it stands. Every `every` seconds, `show` gets the
    last progress line printed meanwhile (a JSON object on a line of its own with
    "expansions"), so that a long run is not silent. A Ctrl-C or SIGTERM to the
    caller (a KeyboardInterrupt) stops it the same way, and so does an error in
    `show`, which is raised again. Returns its stdout less the progress lines (a
    run of hours prints millions of bytes of them), its stderr, and whether an
    interrupt stopped it."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    kept, err, last = [], [], [None]

    def read_out():
        for line in proc.stdout:
            if line.startswith("{") and line.rstrip().endswith("}"):
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError:
                    obj = None
                if isinstance(obj, dict) and "expansions" in obj and "attacker" not in obj:
                    last[0] = obj
                    continue
            kept.append(line)

    readers = [threading.Thread(target=read_out, daemon=True),
               threading.Thread(target=lambda: err.append(proc.stderr.read()), daemon=True)]
    for t in readers:
        t.start()
    start = time.monotonic()
    shown, interrupted = None, False
    try:
        while True:
            now = time.monotonic() - start
            wait = every - now % every
            if seconds is not None:
                wait = min(wait, seconds - now)
            try:
                proc.wait(timeout=max(wait, 0))
                break
            except subprocess.TimeoutExpired:
                pass
            if seconds is not None and time.monotonic() - start >= seconds:
                break
            if show and last[0] is not None and last[0] is not shown:
                shown = last[0]
                show(shown)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        # At the time limit, on an interrupt or an error: one signal, so that
        # fanotb's report is not cut.
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        proc.wait()
        for t in readers:
            t.join()
    return "".join(kept), "".join(err), interrupted
