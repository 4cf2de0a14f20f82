#!/usr/bin/env python3
"""Abuse test of `fanotb serve`, as an attacker would load it (issue 22).

  scripts/abuse-serve.py FANOTB DIR [LINE_CLIENTS] [SLOW_CLIENTS] [SECONDS]

Starts FANOTB serve on the tables in DIR (tsivy, up to 5 stones: build them with
`fanotb generate --max-stones 5 --dir DIR`) and, one phase after the other:
1. LINE_CLIENTS (default 500) clients ask /api/line at once, again and again, for
   SECONDS (default 20);
2. SLOW_CLIENTS (default 1000) clients each hold a connection with half a request,
   reconnecting whenever the server closes one, while one normal client probes
   random positions one after another, for SECONDS; its latency is reported;
3. SIGTERM with the slow clients still connected: the time to exit.
Prints the server's resident memory (VmRSS) before, at the peak of each phase
(sampled every 0.1 s) and after it, and the kernel's peak (VmHWM).
"""

import asyncio
import os
import random
import signal
import subprocess
import sys
import time

fanotb, tables = sys.argv[1], sys.argv[2]
line_clients = int(sys.argv[3]) if len(sys.argv) > 3 else 500
slow_clients = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
seconds = float(sys.argv[5]) if len(sys.argv) > 5 else 20

here = os.path.dirname(os.path.abspath(__file__))
positions = subprocess.run(
    [sys.executable, os.path.join(here, "random-positions.py"), "5", "2000", "7"],
    check=True, capture_output=True, text=True,
).stdout.split("\n")
positions = [p.replace(" ", "%20") for p in positions if p]


def mib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1]) / 1024
    return float("nan")


async def get(host, port, path):
    """One GET on a fresh connection: the status code and the time it took."""
    start = time.perf_counter()
    r, w = await asyncio.open_connection(host, port)
    w.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    await w.drain()
    data = await r.read()
    w.close()
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.1 ") else 0
    return status, time.perf_counter() - start


async def sample_rss(pid, stop, peak):
    while not stop.is_set():
        peak[0] = max(peak[0], mib(pid, "VmRSS:"))
        await asyncio.sleep(0.1)


async def line_phase(host, port, pid):
    stop, peak, counts = asyncio.Event(), [0.0], {}

    async def client(i):
        rng = random.Random(i)
        while not stop.is_set():
            try:
                status, _ = await get(host, port, "/api/line?position=" + rng.choice(positions))
            except OSError:
                status = "error"
            counts[status] = counts.get(status, 0) + 1

    sampler = asyncio.create_task(sample_rss(pid, stop, peak))
    tasks = [asyncio.create_task(client(i)) for i in range(line_clients)]
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    await sampler
    return peak[0], counts


async def slow_client(host, port, stop, held):
    """Holds a connection with half a request; reconnects when it is closed."""
    while not stop.is_set():
        try:
            r, w = await asyncio.open_connection(host, port)
        except OSError:
            await asyncio.sleep(0.1)
            continue
        w.write(b"GET /api/probe?position=start HTTP/1.1\r\nHost: x\r\n")
        held[0] += 1
        try:
            while not stop.is_set():
                # A header byte now and then: a slowloris, not just an idle socket.
                await asyncio.sleep(1)
                w.write(b"X")
                await w.drain()
                if r.at_eof():
                    break
        except OSError:
            pass
        held[0] -= 1
        w.close()


async def slow_phase(host, port, pid):
    stop, peak, held = asyncio.Event(), [0.0], [0]
    sampler = asyncio.create_task(sample_rss(pid, stop, peak))
    slow = [asyncio.create_task(slow_client(host, port, stop, held)) for _ in range(slow_clients)]
    await asyncio.sleep(2)
    rng, times, bad = random.Random(1), [], 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        status, t = await get(host, port, "/api/probe?position=" + rng.choice(positions))
        if status == 200:
            times.append(t)
        else:
            bad += 1
    holding = held[0]
    return stop, slow, sampler, peak, times, bad, holding


def percentile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


async def main():
    server = subprocess.Popen(
        [fanotb, "serve", "--bind", "127.0.0.1:0", "--dir", tables],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    line = server.stdout.readline()
    addr = line.split("http://")[1].split("/")[0]
    host, port = addr.split(":")
    pid = server.pid
    await asyncio.sleep(0.5)
    print(f"fanotb serve pid {pid} on {addr}, tables {tables}, {os.cpu_count()} cores")
    print(f"RSS before: {mib(pid, 'VmRSS:'):.1f} MiB")

    peak, counts = await line_phase(host, port, pid)
    print(f"{line_clients} clients asking /api/line for {seconds:.0f} s: answers {counts}")
    print(f"  RSS peak during: {peak:.1f} MiB; kernel peak so far (VmHWM) {mib(pid, 'VmHWM:'):.1f} MiB")
    await asyncio.sleep(15)
    print(f"  RSS 15 s after: {mib(pid, 'VmRSS:'):.1f} MiB")

    stop, slow, sampler, peak, times, bad, holding = await slow_phase(host, port, pid)
    print(f"{slow_clients} slow clients ({holding} holding a connection at the end); "
          f"one normal client probing for {seconds:.0f} s:")
    print(f"  {len(times)} probes answered 200, {bad} not; latency p50 {percentile(times, 0.5) * 1e3:.2f} ms, "
          f"p99 {percentile(times, 0.99) * 1e3:.2f} ms, max {max(times) * 1e3:.2f} ms")
    print(f"  RSS peak during: {peak[0]:.1f} MiB")

    start = time.monotonic()
    server.send_signal(signal.SIGTERM)
    while server.poll() is None and time.monotonic() < start + 60:
        await asyncio.sleep(0.05)
    if server.poll() is None:
        server.kill()
        print("SIGTERM with the slow clients connected: still running after 60 s (killed)")
    else:
        print(f"SIGTERM with the slow clients connected: exited {server.returncode} after "
              f"{time.monotonic() - start:.2f} s")
    stop.set()
    sampler.cancel()
    await asyncio.gather(*slow, return_exceptions=True)


asyncio.run(main())
