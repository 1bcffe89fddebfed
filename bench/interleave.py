#!/usr/bin/env python3
"""Times short commands interleaved: each round runs every command once, in a shuffled order,
so drift on a noisy machine falls on all of them alike. Output goes to /dev/null.

Usage: interleave.py ROUNDS TAG NAME COMMAND [NAME COMMAND ...]
Prints one line per command: TAG, NAME, the median wall time in seconds, 0 (TSV).
"""
import os, random, shlex, statistics, sys, time

rounds, tag, pairs = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
if rounds < 1 or not pairs or len(pairs) % 2:
    sys.exit(__doc__)
commands = [(pairs[i], shlex.split(pairs[i + 1])) for i in range(0, len(pairs), 2)]
null = os.open(os.devnull, os.O_WRONLY)

def run(argv):
    start = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, null, 1)])
    _, status = os.waitpid(pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"interleave.py: {shlex.join(argv)} failed ({os.waitstatus_to_exitcode(status)})")
    return elapsed

times = {name: [] for name, _ in commands}
for name, argv in commands:  # warm-up: page cache, first-run costs
    for _ in range(3):
        run(argv)
for _ in range(rounds):
    order = commands[:]
    random.shuffle(order)
    for name, argv in order:
        times[name].append(run(argv))
for name, _ in commands:
    print(f"{tag}\t{name}\t{statistics.median(times[name]):.5f}\t0")
