#!/usr/bin/env python3
"""A worker written from docs/protocol.md that answers every item wrongly, for the tests.

Usage: bad_worker.py ENDPOINT WORKER_ID SLOTS
Each answer has the planned block count and lengths, so it passes the coordinator's plan
check, but is wrong in one of three ways, in turn: a wrong CRC-32 on correct deflate bytes,
garbage bytes, or correct deflate bytes cut short. Prints "answered N" after each answer.
"""
import json, os, struct, sys, time, zlib
import zmq

endpoint, worker_id, slots = sys.argv[1], sys.argv[2], int(sys.argv[3])
ctx = zmq.Context.instance()
sock = ctx.socket(zmq.DEALER)
sock.setsockopt(zmq.LINGER, 0)
sock.routing_id = worker_id.encode()
sock.connect(endpoint)

def header(kind):
    return b"SQ" + bytes([2, kind]) + struct.pack("<QI", 0, 0)

hello = {"workerID": worker_id, "host": "test", "slots": slots, "pid": os.getpid(),
         "engines": ["zlib", "libdeflate", "isal", "stored"]}
sock.send_multipart([header(1), json.dumps(hello).encode()])

def deflate(data, dictionary, last):
    c = zlib.compressobj(6, zlib.DEFLATED, -15, 8, zlib.Z_DEFAULT_STRATEGY, zdict=dictionary) if dictionary \
        else zlib.compressobj(6, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH)

answered = 0
last_beat = 0.0
while True:
    now = time.monotonic()
    if now - last_beat > 0.3:
        sock.send_multipart([header(3)])
        last_beat = now
    if not sock.poll(100):
        continue
    frames = sock.recv_multipart()
    if len(frames[0]) != 16 or frames[0][3] != 4:  # only `work` matters here
        continue
    table = frames[1]
    job, item = struct.unpack_from("<QQ", table, 0)
    (count,) = struct.unpack_from("<I", table, 18)
    entries, payloads = [], []
    for i in range(count):
        _, _, dlen, length, last = struct.unpack_from("<IIIIB", table, 22 + 17 * i)
        payload = frames[2 + i]
        dictionary, data = payload[:dlen], payload[dlen:]
        good = deflate(data, dictionary, last == 1)
        crc = zlib.crc32(data) & 0xFFFFFFFF
        mode = answered % 3
        if mode == 0:
            out, crc = good, crc ^ 0x5A5A5A5A
        elif mode == 1:
            out = os.urandom(max(8, len(good)))
        else:
            out = good[: max(1, len(good) - 3)]
        entries.append(struct.pack("<III", crc, length, len(out)))
        payloads.append(out)
    result = struct.pack("<QQI", job, item, count) + b"".join(entries)
    sock.send_multipart([header(5), result] + payloads)
    answered += 1
    print(f"answered {answered}", flush=True)
