#!/usr/bin/env python3
"""The test data of compose/test.sh and deploy/kubernetes/test.sh: 60 text-like files of
2 MiB (120 MiB) in six folders under ROOT, the same bytes every run.
   test-data.py ROOT"""
import os, random, sys
root = sys.argv[1]
rng = random.Random(7)
words = [w.strip() for w in open("/usr/share/dict/words")] if os.path.exists("/usr/share/dict/words") else \
        ["squeeze", "gzip", "block", "worker", "coordinator", "deflate", "stream", "folder", "podman", "compose"]
base = " ".join(rng.choice(words) + ("\n" if rng.random() < 0.1 else "") for _ in range(250_000)).encode()
base += os.urandom(len(base) // 8)
for i in range(60):
    path = os.path.join(root, f"part-{i % 6}", f"file-{i}.txt")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        size, offset = 2 << 20, (i * 7919) % len(base)
        f.write(f"file {i}\n".encode())
        written = 0
        while written < size:
            chunk = base[offset:offset + size - written]
            f.write(chunk)
            written += len(chunk)
            offset = 0
