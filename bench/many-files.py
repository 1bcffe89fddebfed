#!/usr/bin/env python3
"""Makes a folder of many small files from real bytes on this machine, quickly.

usage: many-files.py DIR COUNT [PER_FOLDER]

Files are 100 B to 8 KiB (most under 2 KiB, like source trees and mail folders), cut from
the text and binaries under /usr/share and /usr/lib, PER_FOLDER (default 1000) to a folder.
The same COUNT gives the same tree (seeded), so runs compare.
"""
import os, random, sys

def material(limit=64 << 20):
    """Up to `limit` bytes of real files: what the small files are cut from."""
    chunks, total = [], 0
    for root in ("/usr/share/doc", "/usr/share/perl", "/usr/lib/python3", "/usr/include", "/usr/lib/x86_64-linux-gnu"):
        for folder, _, names in os.walk(root):
            for name in sorted(names):
                path = os.path.join(folder, name)
                try:
                    if os.path.islink(path) or os.path.getsize(path) > (4 << 20):
                        continue
                    with open(path, "rb") as f:
                        data = f.read()
                except OSError:
                    continue
                chunks.append(data)
                total += len(data)
                if total >= limit:
                    return b"".join(chunks)
    return b"".join(chunks)

def main():
    target, count = sys.argv[1], int(sys.argv[2])
    per_folder = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    data = material()
    rng = random.Random(count)
    os.makedirs(target, exist_ok=True)
    for index in range(count):
        folder = os.path.join(target, "d%04d" % (index // per_folder))
        if index % per_folder == 0:
            os.makedirs(folder, exist_ok=True)
        size = min(8192, int(rng.lognormvariate(6.8, 0.9)) + 100)
        start = rng.randrange(0, len(data) - size)
        fd = os.open(os.path.join(folder, "f%06d.txt" % index), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(fd, data[start:start + size])
        os.close(fd)

main()
