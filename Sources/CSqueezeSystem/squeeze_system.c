#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include "squeeze_system.h"

int squeeze_syncfs(int fd) {
    return syncfs(fd);
}

int squeeze_rename_noreplace(const char *from, const char *to) {
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}

long squeeze_copy_file_range(int from, long long from_offset, int to, long long to_offset, unsigned long length) {
    off64_t in = from_offset;
    off64_t out = to_offset;
    return (long)copy_file_range(from, &in, to, &out, length, 0);
}

int squeeze_sync_file_range(int fd, long long offset, long long length, int wait) {
    unsigned int flags = SYNC_FILE_RANGE_WRITE;
    if (wait) flags |= SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WAIT_AFTER;
    return sync_file_range(fd, offset, length, flags);
}

int squeeze_o_direct(void) {
    return O_DIRECT;
}

int squeeze_set_direct(int fd, int on) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return -1;
    flags = on ? (flags | O_DIRECT) : (flags & ~O_DIRECT);
    return fcntl(fd, F_SETFL, flags);
}

/// Guards the two below and the trim threshold while stretches of release begin and end.
static pthread_mutex_t release_lock = PTHREAD_MUTEX_INITIALIZER;
/// The trim threshold squeeze_tune_malloc set; -1 while glibc's own applies.
static int tuned_trim_threshold = -1;
/// Stretches of release begun and not yet ended.
static int open_releases = 0;

int squeeze_tune_malloc(int mmap_threshold, int trim_threshold) {
    pthread_mutex_lock(&release_lock);
    int tuned = mallopt(M_MMAP_THRESHOLD, mmap_threshold) == 1 && mallopt(M_TRIM_THRESHOLD, trim_threshold) == 1;
    if (tuned) tuned_trim_threshold = trim_threshold;
    if (tuned && open_releases > 0) mallopt(M_TRIM_THRESHOLD, 0);
    pthread_mutex_unlock(&release_lock);
    return tuned;
}

int squeeze_limit_malloc_arenas(int arenas) {
    return mallopt(M_ARENA_MAX, arenas) == 1;
}

int squeeze_trim_malloc(void) {
    return malloc_trim(0);
}

void squeeze_release_freed_begin(void) {
    pthread_mutex_lock(&release_lock);
    if (open_releases++ == 0 && tuned_trim_threshold >= 0) mallopt(M_TRIM_THRESHOLD, 0);
    pthread_mutex_unlock(&release_lock);
}

void squeeze_release_freed_end(void) {
    pthread_mutex_lock(&release_lock);
    if (open_releases > 0 && --open_releases == 0 && tuned_trim_threshold >= 0) mallopt(M_TRIM_THRESHOLD, tuned_trim_threshold);
    pthread_mutex_unlock(&release_lock);
}
