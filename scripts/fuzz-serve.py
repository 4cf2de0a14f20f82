#!/usr/bin/env python3
"""Fuzzes a running `fanotb serve` over the network with mutated HTTP requests.

  scripts/fuzz-serve.py FANOTB DIR [REQUESTS] [CONNECTIONS] [SEED]

Starts FANOTB serve on the tables in DIR and sends REQUESTS (default 1,000,000)
requests on CONNECTIONS (default 32) keep-alive connections: each a seed request of
the API (probe, line, tables, charts, the page) mutated at random (bytes flipped,
inserted, deleted or duplicated anywhere in the request line and headers, or the
query replaced by random bytes). A connection the server closes (for a request it
cannot parse) is opened again; one left without an answer for 2 s (a request
mutated into an unfinished one) is counted as such and replaced. Counts the answers by status and fails (exit 1) on
any 5xx but 503, an answer that is not HTTP, a server that stops answering or exits, or a
normal probe that no longer gets the right answer at the end. Prints the server's
peak resident memory.
"""

import asyncio
import random
import socket
import struct
import subprocess
import sys
import time

fanotb, tables = sys.argv[1], sys.argv[2]
total = int(sys.argv[3]) if len(sys.argv) > 3 else 1_000_000
conns = int(sys.argv[4]) if len(sys.argv) > 4 else 32
seed = int(sys.argv[5]) if len(sys.argv) > 5 else 1

SEEDS = [
    b"/api/probe?position=9/9/B8/9/3WW3B%20w",
    b"/api/probe?position=9/9/B8/9/3WW3B+w&limit=20&counter=3",
    b"/api/line?position=9/9/4W4/9/B7B%20w",
    b"/api/line?position=start",
    b"/api/tables",
    b"/charts/depths.svg?board=9x5&signature=2v1",
    b"/charts/shares.svg?board=9x5",
    b"/",
    b"/board.js",
]


def mutate(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(5)
        at = rng.randrange(len(data) + 1)
        if op == 0 and data:
            data[min(at, len(data) - 1)] = rng.randrange(256)
        elif op == 1:
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif op == 2 and data:
            del data[at:at + rng.randint(1, 8)]
        elif op == 3:
            data[at:at] = data[at:at + rng.randint(1, 64)] * rng.randint(1, 8)
        else:
            data[at:at] = rng.choice([b"%", b"%FF", b"&", b"=", b"&limit=", b"&counter=",
                                      b"position=", b"+", b"\r\n", b" ", b"\x00"])
    return bytes(data)


def request(rng):
    target = rng.choice(SEEDS)
    if rng.random() < 0.2:
        path = target.split(b"?")[0]
        target = path + b"?" + bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))
    head = b"GET " + target + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    # Most mutations stay in the target, so that most requests reach the API.
    if rng.random() < 0.8:
        return b"GET " + mutate(rng, target) + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    return mutate(rng, head)


async def read_answer(r):
    """The status of one answer, having read its body; None when closed."""
    line = await r.readline()
    if not line:
        return None
    # A request mutated into HTTP/1.0 is answered in HTTP/1.0.
    if not (line.startswith(b"HTTP/1.1 ") or line.startswith(b"HTTP/1.0 ")):
        raise RuntimeError(f"not HTTP: {line[:80]!r}")
    status = int(line.split(b" ", 2)[1])
    length, close = 0, False
    while True:
        h = await r.readline()
        if h in (b"\r\n", b""):
            break
        k, _, v = h.partition(b":")
        k = k.strip().lower()
        if k == b"content-length":
            length = int(v)
        elif k == b"connection" and b"close" in v.lower():
            close = True
    await r.readexactly(length)
    return status, close


async def connect(host, port):
    r, w = await asyncio.open_connection(host, port)
    # Reset on close: a million connections would otherwise exhaust the ports.
    w.get_extra_info("socket").setsockopt(
        socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    return r, w


async def worker(i, host, port, share, counts):
    rng = random.Random(seed * 1000 + i)
    r, w = await connect(host, port)
    sent = 0
    while sent < share:
        req = request(rng)
        sent += 1
        w.write(req)
        try:
            await w.drain()
            answer = await asyncio.wait_for(read_answer(r), 2)
        except TimeoutError:
            # A request mutated into an unfinished one: the server waits for the
            # rest (until its header timeout); so does not this client.
            answer = ("unfinished", True)
        except (ConnectionError, asyncio.IncompleteReadError):
            answer = None
        if answer is None:
            counts["closed"] = counts.get("closed", 0) + 1
        else:
            status, close = answer
            counts[status] = counts.get(status, 0) + 1
            if status != "unfinished" and status >= 500 and status != 503:
                raise RuntimeError(f"{status} for {req[:200]!r}")
        if answer is None or answer[1]:
            w.close()
            r, w = await connect(host, port)
    w.close()


def rss_peak(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


async def main():
    server = subprocess.Popen([fanotb, "serve", "--bind", "127.0.0.1:0", "--dir", tables],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    addr = server.stdout.readline().split("http://")[1].split("/")[0]
    host, port = addr.split(":")
    counts = {}
    start = time.monotonic()
    try:
        # The first finding stops every worker.
        async with asyncio.TaskGroup() as tg:
            for i in range(conns):
                tg.create_task(worker(i, host, port, total // conns, counts))
        r, w = await connect(host, port)
        w.write(b"GET /api/probe?position=9/9/B8/9/3WW3B%20w HTTP/1.1\r\nHost: x\r\n\r\n")
        status, _ = await read_answer(r)
        assert status == 200, status
        assert server.poll() is None, "the server exited"
        took = time.monotonic() - start
        sent = sum(counts.values())
        print(f"{sent} fuzzed requests in {took:.0f} s on {conns} connections: "
              f"{dict(sorted(counts.items(), key=str))}")
        print(f"no 5xx but 503, every answer HTTP, the server up and answering; "
              f"its peak RSS {rss_peak(server.pid):.1f} MiB")
    finally:
        server.terminate()
        server.wait()


asyncio.run(main())
