#!/usr/bin/env python3
"""A client written from docs/protocol.md that floods the coordinator with detached submits, for the tests:
N submits of SOURCE, each to OUTROOT/I, pipelined (W in flight), as fast as the coordinator answers.
Prints "accepted A refused R" and a count of each refusal reason (first 80 bytes).
Usage: flood_client.py ENDPOINT SOURCE OUTROOT N [W]"""
import json, struct, sys, time, zmq
endpoint, source, outroot, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
window = int(sys.argv[5]) if len(sys.argv) > 5 else 64
ctx = zmq.Context.instance()
sock = ctx.socket(zmq.DEALER)
sock.setsockopt(zmq.LINGER, 0)
sock.connect(endpoint)
def header(kind, correlation):
    return b"SQ" + bytes([2, kind]) + struct.pack("<QI", correlation, 0)
sent = accepted = refused = 0
reasons = {}
start = time.monotonic()
while accepted + refused < n:
    while sent < n and sent - accepted - refused < window:
        sent += 1
        body = {"source": source, "destination": f"{outroot}/{sent}", "level": 6, "force": False, "detached": True}
        sock.send_multipart([header(20, sent), json.dumps(body).encode()])
    if not sock.poll(30000):
        print("no reply for 30 s", flush=True)
        break
    frames = sock.recv_multipart()
    kind = frames[0][3]
    if kind == 21:
        accepted += 1
    elif kind == 30:
        refused += 1
        reason = json.loads(frames[1]).get("message", "")[:80]
        reasons[reason] = reasons.get(reason, 0) + 1
print(f"accepted {accepted} refused {refused} in {time.monotonic() - start:.1f} s; {reasons}", flush=True)
