/*
 * What waking a sleeping thread costs on this machine: two threads pass a token back and
 * forth through a pair of eventfds (what libzmq's mailboxes signal with), each blocking in
 * read(2) until the other writes. Each round is two wake-ups of a sleeping thread: there and back.
 *
 *   wakeups PLACEMENT ROUNDS
 *
 * PLACEMENT is `apart` (the threads pinned to two different CPUs), `together` (both on the
 * first CPU) or `processes` (two processes on the first CPU, as a coordinator woken where a
 * worker runs). Prints one line: placement, wake-ups, wall microseconds per wake-up, and CPU
 * microseconds (user + system, both sides) per wake-up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int ping, pong;
/* Set before the echo thread starts, read-only after. */
static long rounds;

static void fail(const char *what) {
    fprintf(stderr, "wakeups: %s: %s\n", what, strerror(errno));
    exit(1);
}

/* read(2) and write(2) of one eventfd counter, retried on EINTR. */
static void take(int fd) {
    uint64_t value;
    while (read(fd, &value, sizeof value) != (ssize_t)sizeof value) {
        if (errno != EINTR) fail("read");
    }
}

static void give(int fd) {
    uint64_t value = 1;
    while (write(fd, &value, sizeof value) != (ssize_t)sizeof value) {
        if (errno != EINTR) fail("write");
    }
}

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    int status = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    if (status != 0) {
        errno = status;
        fail("pthread_setaffinity_np");
    }
}

static int other_cpu;

static void *echo(void *unused) {
    (void)unused;
    pin(other_cpu);
    for (long i = 0; i < rounds; i++) {
        take(ping);
        give(pong);
    }
    return NULL;
}

static double seconds(struct timeval t) { return (double)t.tv_sec + (double)t.tv_usec / 1e6; }

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[1], "apart") != 0 && strcmp(argv[1], "together") != 0 && strcmp(argv[1], "processes") != 0)) {
        fprintf(stderr, "usage: wakeups apart|together|processes ROUNDS\n");
        return 2;
    }
    rounds = strtol(argv[2], NULL, 10);
    if (rounds < 2 || rounds > 100000000) {
        fprintf(stderr, "wakeups: ROUNDS must be 2 to 100000000\n");
        return 2;
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int apart = strcmp(argv[1], "apart") == 0;
    if (apart && cpus < 2) {
        fprintf(stderr, "wakeups: one CPU, nothing to place apart\n");
        return 2;
    }
    other_cpu = apart ? 1 : 0;  /* `processes` share the first CPU too */
    if ((ping = eventfd(0, EFD_CLOEXEC)) < 0 || (pong = eventfd(0, EFD_CLOEXEC)) < 0) fail("eventfd");
    pin(0);
    int processes = strcmp(argv[1], "processes") == 0;
    pthread_t thread;
    pid_t child = -1;
    if (processes) {
        child = fork();
        if (child < 0) fail("fork");
        if (child == 0) {
            echo(NULL);
            _exit(0);
        }
    } else {
        int status = pthread_create(&thread, NULL, echo, NULL);
        if (status != 0) {
            errno = status;
            fail("pthread_create");
        }
    }
    /* One untimed round: both threads are running and placed before the clock starts. */
    struct timespec start, end;
    struct rusage before, after;
    give(ping);
    take(pong);
    long timed = rounds - 1;
    clock_gettime(CLOCK_MONOTONIC, &start);
    getrusage(RUSAGE_SELF, &before);
    for (long i = 0; i < timed; i++) {
        give(ping);
        take(pong);
    }
    getrusage(RUSAGE_SELF, &after);
    clock_gettime(CLOCK_MONOTONIC, &end);
    double wall = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    double cpu = seconds(after.ru_utime) - seconds(before.ru_utime) + seconds(after.ru_stime) - seconds(before.ru_stime);
    if (processes) {
        /* The child's CPU, all of it: its one untimed round is noise against the rest. */
        int status;
        while (waitpid(child, &status, 0) < 0) {
            if (errno != EINTR) fail("waitpid");
        }
        struct rusage children;
        getrusage(RUSAGE_CHILDREN, &children);
        cpu += seconds(children.ru_utime) + seconds(children.ru_stime);
    } else {
        pthread_join(thread, NULL);
    }
    /* Each loop turn is two wake-ups: there and back. */
    long total = 2 * (timed > 0 ? timed : 1);
    printf("%s %ld %.2f %.2f\n", argv[1], total, wall / (double)total * 1e6, cpu / (double)total * 1e6);
    return 0;
}
