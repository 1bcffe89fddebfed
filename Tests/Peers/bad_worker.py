#!/usr/bin/env python3
"""A worker written from docs/protocol.md that answers every item wrongly, for the tests.

Usage: bad_worker.py ENDPOINT WORKER_ID SLOTS [MODE]
MODE `wrong` (the default): each answer has the planned block count and lengths, so it
passes the coordinator's plan check, but is wrong in one of three ways, in turn: a wrong
CRC-32 on correct deflate bytes, garbage bytes, or correct deflate bytes cut short. It does
not announce `verify`. Prints "answered N" after each answer.
MODE `verify-bad` or `verify-good`: it announces `verify` and no engine (so it is given
checks, never items; it would compress correctly) and lies in every `verified` answer, without decoding: `verify-bad` calls every block a defect,
`verify-good` says every block decoded (to the CRC-32 of its deflate bytes, all it can know).
Prints "verdict N" after each.
MODE `verify-silent`: like those, but it never answers a `verify`. Prints "ignored N".
MODE `fail-reads`: it announces shared storage, says it sees every job's files, and answers
every `workRef` with each block failed ("cannot read"), writing nothing. Prints "failed N".
MODE `stitch-bad`: it announces shared storage and no engine (so it is given stitches, never
items) and joins every segment as asked, header, pieces and trailer at the right offsets and
with the right length, but with one byte of each segment's first piece flipped. It announces
`offsetTable` and writes a last segment's final header as given. Prints "stitched N".
MODE `table-bad`: like `stitch-bad`, but it copies every piece as it is and lies only in the
offset table: the final header it writes has one span's length one more. Prints "stitched N".
MODE `collude`: one process, two worker ids on two connections: WORKER_ID compresses every
item into corrupt deflate (a flipped bit) under the true CRC-32 and length, and WORKER_ID-v
announces `verify` and no engine and calls every block good with the true CRC-32 its partner
kept (it decodes anyone else's honestly). With CURVE_SECRET_V the second connects with a key
of its own. Prints "answered N", "vouched N" (for its partner) and "verdict N" (for others).
With COLLUDE_SHARE (a folder) the compressing id leaves each block's true CRC-32 and the bytes
it sent there, and with COLLUDE_ROLE=compress it registers no second id: MODE `collude-verify`,
another process, is then the partner (it announces `verify` and no engine, and vouches for the
bytes it finds in the folder): two processes, and with a key each, two principals.
MODE `listing-liar`: it announces shared storage, no engine and the capabilities a scanning
worker has (`batches`, `publish`, `scans`, `listings`, no `verify`), so it is given listing
checks and nothing else, says it sees every job's files, and answers every `checkListing` with
a random digest, never listing anything. Prints "lied N".
With CURVE_SECRET (its certificate) and CURVE_SERVER (the coordinator's public certificate)
in the environment, it connects with CURVE.
"""
import json, os, struct, sys, time, zlib
import zmq

endpoint, worker_id, slots = sys.argv[1], sys.argv[2], int(sys.argv[3])
mode = sys.argv[4] if len(sys.argv) > 4 else "wrong"
assert mode in ("wrong", "verify-bad", "verify-good", "verify-silent", "fail-reads", "stitch-bad", "table-bad", "collude", "collude-verify", "listing-liar"), mode
ctx = zmq.Context.instance()
sock = ctx.socket(zmq.DEALER)
sock.setsockopt(zmq.LINGER, 0)
sock.routing_id = worker_id.encode()
if os.environ.get("CURVE_SECRET"):
    import zmq.auth
    public, secret = zmq.auth.load_certificate(os.environ["CURVE_SECRET"])
    server, _ = zmq.auth.load_certificate(os.environ["CURVE_SERVER"])
    sock.curve_publickey, sock.curve_secretkey, sock.curve_serverkey = public, secret, server
sock.connect(endpoint)

def header(kind):
    return b"SQ" + bytes([2, kind]) + struct.pack("<QI", 0, 0)

hello = {"workerID": worker_id, "host": "test", "slots": slots, "pid": os.getpid(),
         "engines": ["zlib", "libdeflate", "isal", "stored"]}
if mode == "fail-reads":
    hello["storage"] = "shared"
elif mode == "listing-liar":
    hello["storage"] = "shared"
    hello["engines"] = []
    hello["capabilities"] = ["batches", "publish", "scans", "listings"]
elif mode in ("stitch-bad", "table-bad"):
    hello["storage"] = "shared"
    hello["engines"] = []
    hello["capabilities"] = ["offsetTable"]
elif mode not in ("wrong", "collude"):
    # It only verifies: with no engine it is given no item, so it is always free to check.
    hello["capabilities"] = ["verify"]
    hello["engines"] = []
sock.send_multipart([header(1), json.dumps(hello).encode()])

def deflate(data, dictionary, last):
    c = zlib.compressobj(6, zlib.DEFLATED, -15, 8, zlib.Z_DEFAULT_STRATEGY, zdict=dictionary) if dictionary \
        else zlib.compressobj(6, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH)

def verdicts(frames):
    table = frames[1]
    check, job, item, count = struct.unpack_from("<QQQI", table, 0)
    at, payload, findings = 28, 2, []
    for _ in range(count):
        kind, raw, last = struct.unpack_from("<BIB", table, at)
        at += 6
        if kind != 0:  # only inline blocks come to a remote worker
            findings.append(struct.pack("<BIII", 2, 0, 0, 0))
            continue
        at += 8
        deflated = frames[payload + 1]
        payload += 2
        if mode == "verify-bad":
            reason = b"says so"
            findings.append(struct.pack("<BIII", 1, 0, 0, len(reason)) + reason)
        else:
            findings.append(struct.pack("<BIII", 0, zlib.crc32(deflated) & 0xFFFFFFFF, 0, 0))
    return struct.pack("<QI", check, count) + b"".join(findings)

def failed_pieces(table):
    job, item, attempt = struct.unpack_from("<QQQ", table, 0)
    (wlen,) = struct.unpack_from("<I", table, 27)
    (count,) = struct.unpack_from("<I", table, 31 + wlen)
    reason = b"cannot read: says so"
    pieces = struct.pack("<IIQI", 0, 0, 0, len(reason)) + reason
    return struct.pack("<QQQI", job, item, attempt, count) + pieces * count

def take_bytes(table, at):
    (n,) = struct.unpack_from("<I", table, at)
    return table[at + 4 : at + 4 + n], at + 4 + n

def stitch(table):
    """Joins one segment as the stitch table says, corrupting it; returns the stitched table."""
    job, file, attempt, flags, mode_bits, sec, nsec, offset = struct.unpack_from("<QIQBIqqQ", table, 0)
    at = 49
    workspace, at = take_bytes(table, at)
    head, at = take_bytes(table, at)
    trailer, at = take_bytes(table, at)
    (count,) = struct.unpack_from("<I", table, at)
    at += 4
    ws = workspace.decode()
    out_path = f"{ws}/s{file}-{attempt}"
    fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | (os.O_EXCL if head else 0), 0o600)
    try:
        if head:
            os.pwrite(fd, head, 0)
        end = offset
        for i in range(count):
            item, piece_attempt, position, length = struct.unpack_from("<QQIQ", table, at)
            at += 28
            try:
                with open(f"{ws}/p{item}-{piece_attempt}-{position}", "rb") as piece:
                    data = bytearray(piece.read())
            except OSError as error:
                # Once a segment is refused the coordinator joins the file itself and removes its
                # pieces, maybe before a later segment of the same stitch is read: a real worker
                # answers that segment failed, and so does this one.
                failure = f"cannot read a piece: {error.strerror}".encode()
                return struct.pack("<QIQQI", job, file, attempt, end, len(failure)) + failure
            if i == 0 and data and mode == "stitch-bad":
                data[len(data) // 2] ^= 0x20
            os.pwrite(fd, bytes(data), end)
            end += len(data)
        # The final header (docs/protocol.md): only after the pieces, only with the last segment.
        final = take_bytes(table, at)[0] if at < len(table) else b""
        if trailer:
            os.pwrite(fd, trailer, end)
            end += len(trailer)
            if final:
                final = bytearray(final)
                if mode == "table-bad":
                    # XLEN at 10, 'Sq' and LEN, version, span size: the first span's length at 21.
                    final[21] ^= 1
                os.pwrite(fd, bytes(final), 0)
            os.fchmod(fd, mode_bits & 0o7777)
    finally:
        os.close(fd)
    return struct.pack("<QIQQI", job, file, attempt, end, 0)

def honest_crc(dictionary, deflated):
    d = zlib.decompressobj(-15, zdict=dictionary) if dictionary else zlib.decompressobj(-15)
    try:
        return zlib.crc32(d.decompress(deflated) + d.flush()) & 0xFFFFFFFF
    except zlib.error:
        return 0

def collude_verify():
    """The vouching half of a party in a process of its own, told the truth through COLLUDE_SHARE."""
    share, judged, vouched, last_beat = os.environ["COLLUDE_SHARE"], 0, 0, 0.0
    while True:
        if time.monotonic() - last_beat > 0.3:
            sock.send_multipart([header(3)])
            last_beat = time.monotonic()
        if not sock.poll(100):
            continue
        frames = sock.recv_multipart()
        if len(frames[0]) != 16 or frames[0][3] != 18:
            continue
        check, job, item, count = struct.unpack_from("<QQQI", frames[1], 0)
        findings, partner = b"", False
        for i in range(count):
            dictionary, deflated = frames[2 + 2 * i], frames[3 + 2 * i]
            crc = None
            try:
                with open(f"{share}/{job}-{item}-{i}", "rb") as kept:
                    data = kept.read()
                if data[4:] == deflated:
                    (crc,) = struct.unpack_from("<I", data, 0)
                    partner = True
            except OSError:
                pass
            if crc is None:
                crc = honest_crc(dictionary, deflated)
            findings += struct.pack("<BIII", 0, crc, 0, 0)
        sock.send_multipart([header(19), struct.pack("<QI", check, count) + findings])
        if partner:
            vouched += 1
            print(f"vouched {vouched}", flush=True)
        else:
            judged += 1
            print(f"verdict {judged}", flush=True)

def collude():
    """Two identities of one party: one answers wrongly, the other vouches for it."""
    share = os.environ.get("COLLUDE_SHARE")
    alone = os.environ.get("COLLUDE_ROLE") == "compress"
    verifier = ctx.socket(zmq.DEALER)
    verifier.setsockopt(zmq.LINGER, 0)
    verifier.routing_id = (worker_id + "-v").encode()
    secret = os.environ.get("CURVE_SECRET_V") or os.environ.get("CURVE_SECRET")
    if secret:
        from zmq import auth as certificates
        public, private = certificates.load_certificate(secret)
        server, _ = certificates.load_certificate(os.environ["CURVE_SERVER"])
        verifier.curve_publickey, verifier.curve_secretkey, verifier.curve_serverkey = public, private, server
    if not alone:
        verifier.connect(endpoint)
        verifier.send_multipart([header(1), json.dumps({"workerID": worker_id + "-v", "host": "other", "slots": 1, "pid": os.getpid() + 1,
                                                       "engines": [], "capabilities": ["verify"]}).encode()])
    true_crcs, answered, judged, vouched, last_beat = {}, 0, 0, 0, 0.0
    poller = zmq.Poller()
    poller.register(sock, zmq.POLLIN)
    if not alone:
        poller.register(verifier, zmq.POLLIN)
    while True:
        if time.monotonic() - last_beat > 0.3:
            sock.send_multipart([header(3)])
            if not alone:
                verifier.send_multipart([header(3)])
            last_beat = time.monotonic()
        for ready, _ in poller.poll(100):
            frames = ready.recv_multipart()
            if len(frames[0]) != 16:
                continue
            kind = frames[0][3]
            if ready is sock and kind == 4:  # work
                table = frames[1]
                job, item = struct.unpack_from("<QQ", table, 0)
                (count,) = struct.unpack_from("<I", table, 18)
                entries, payloads = [], []
                for i in range(count):
                    _, _, dlen, length, last = struct.unpack_from("<IIIIB", table, 22 + 17 * i)
                    dictionary, data = frames[2 + i][:dlen], frames[2 + i][dlen:]
                    out = bytearray(deflate(data, dictionary, last == 1))
                    out[len(out) // 2] ^= 0x01
                    crc = zlib.crc32(data) & 0xFFFFFFFF
                    true_crcs[(job, item, i)] = (crc, bytes(out))
                    if share:
                        with open(f"{share}/{job}-{item}-{i}", "wb") as kept:
                            kept.write(struct.pack("<I", crc) + bytes(out))
                    entries.append(struct.pack("<III", crc, length, len(out)))
                    payloads.append(bytes(out))
                sock.send_multipart([header(5), struct.pack("<QQI", job, item, count) + b"".join(entries)] + payloads)
                answered += 1
                print(f"answered {answered}", flush=True)
            elif ready is verifier and kind == 18:  # verify
                table = frames[1]
                check, job, item, count = struct.unpack_from("<QQQI", table, 0)
                findings = b""
                partner = False
                for i in range(count):
                    # Its partner's answers (the very bytes it sent) get their true CRC; anyone
                    # else's, a retry of the same item included, are honestly decoded.
                    dictionary, deflated = frames[2 + 2 * i], frames[3 + 2 * i]
                    kept = true_crcs.get((job, item, i))
                    crc = None
                    if kept is not None and kept[1] == deflated:
                        crc, partner = kept[0], True
                    if crc is None:
                        crc = honest_crc(dictionary, deflated)
                    findings += struct.pack("<BIII", 0, crc, 0, 0)
                verifier.send_multipart([header(19), struct.pack("<QI", check, count) + findings])
                if partner:
                    vouched += 1
                    print(f"vouched {vouched}", flush=True)
                else:
                    judged += 1
                    print(f"verdict {judged}", flush=True)

if mode == "collude":
    collude()
if mode == "collude-verify":
    collude_verify()

answered = 0
judged = 0
stitched = 0
failed = 0
lied = 0
last_beat = 0.0
while True:
    now = time.monotonic()
    if now - last_beat > 0.3:
        sock.send_multipart([header(3)])
        last_beat = now
    if not sock.poll(100):
        continue
    frames = sock.recv_multipart()
    if len(frames[0]) == 16 and frames[0][3] == 18 and mode == "verify-silent":
        judged += 1
        print(f"ignored {judged}", flush=True)
        continue
    if len(frames[0]) == 16 and frames[0][3] == 18 and mode != "wrong":
        sock.send_multipart([header(19), verdicts(frames)])
        judged += 1
        print(f"verdict {judged}", flush=True)
        continue
    if len(frames[0]) == 16 and mode == "listing-liar" and frames[0][3] == 37:  # checkListing
        (check,) = struct.unpack_from("<Q", frames[1], 0)
        sock.send_multipart([header(38), struct.pack("<Q", check) + os.urandom(8)])
        lied += 1
        print(f"lied {lied}", flush=True)
        continue
    if len(frames[0]) == 16 and mode in ("fail-reads", "listing-liar") and frames[0][3] == 10:  # probe
        probe = json.loads(frames[1])
        sock.send_multipart([header(11), json.dumps({"jobID": probe["jobID"], "shared": True}).encode()])
        continue
    if len(frames[0]) == 16 and mode in ("stitch-bad", "table-bad") and frames[0][3] == 14:  # stitch
        sock.send_multipart([header(15), stitch(frames[1])])
        stitched += 1
        print(f"stitched {stitched}", flush=True)
        continue
    if len(frames[0]) == 16 and mode in ("stitch-bad", "table-bad") and frames[0][3] == 16:  # discard
        (job,) = struct.unpack_from("<Q", frames[1], 0)
        sock.send_multipart([header(17), struct.pack("<Q", job)])
        continue
    if len(frames[0]) == 16 and mode == "fail-reads" and frames[0][3] == 12:  # workRef
        sock.send_multipart([header(13), failed_pieces(frames[1])])
        failed += 1
        print(f"failed {failed}", flush=True)
        continue
    if len(frames[0]) != 16 or frames[0][3] != 4:  # only `work` and `verify` matter here
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
        wrong = answered % 3
        if mode != "wrong":
            out = good
        elif wrong == 0:
            out, crc = good, crc ^ 0x5A5A5A5A
        elif wrong == 1:
            out = os.urandom(max(8, len(good)))
        else:
            out = good[: max(1, len(good) - 3)]
        entries.append(struct.pack("<III", crc, length, len(out)))
        payloads.append(out)
    result = struct.pack("<QQI", job, item, count) + b"".join(entries)
    sock.send_multipart([header(5), result] + payloads)
    answered += 1
    print(f"answered {answered}", flush=True)
