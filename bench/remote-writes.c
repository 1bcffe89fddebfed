// What a remote cluster's coordinator does for each small output, measured two ways (#41, item 4):
// create a temporary, write the member, close it and rename it into place, for N files in
// folders of 1,000 (as bench/many-files.py makes them). "syscalls": one system call each, as the coordinator's writers do now.
// "io_uring": the same four operations linked per file (open to a direct descriptor, write,
// close, rename), BATCH files a submission, so the kernel is entered once per batch.
// Prints the CPU seconds (user + system) each way took. Build and run: bench/remote-writes.sh.
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

static void fail(const char *what, int error) {
    fprintf(stderr, "remote-writes: %s: %s\n", what, strerror(error));
    exit(1);
}

static void with_syscalls(const int *folders, int count, const char *data, size_t size) {
    char temporary[64], final[64];
    for (int i = 0; i < count; i++) {
        snprintf(temporary, sizeof temporary, ".tmp-%d", i);
        snprintf(final, sizeof final, "f%d.gz", i);
        int folder = folders[i / 1000];
        int fd = openat(folder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) fail("openat", errno);
        if (write(fd, data, size) != (ssize_t)size) fail("write", errno);
        if (close(fd) != 0) fail("close", errno);
        if (renameat(folder, temporary, folder, final) != 0) fail("renameat", errno);
    }
}

static void with_io_uring(const int *folders, int count, const char *data, size_t size, int batch) {
    struct io_uring ring;
    int rc = io_uring_queue_init(4 * batch, &ring, 0);
    if (rc < 0) fail("io_uring_queue_init", -rc);
    rc = io_uring_register_files_sparse(&ring, batch);
    if (rc < 0) fail("io_uring_register_files_sparse", -rc);
    char (*names)[2][64] = calloc(batch, sizeof *names);
    for (int start = 0; start < count; start += batch) {
        int n = count - start < batch ? count - start : batch;
        for (int k = 0; k < n; k++) {
            int i = start + k;
            snprintf(names[k][0], 64, ".tmp-%d", i);
            snprintf(names[k][1], 64, "f%d.gz", i);
            struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
            // A direct descriptor has no close-on-exec flag: O_CLOEXEC is refused with it.
            io_uring_prep_openat_direct(sqe, folders[i / 1000], names[k][0], O_WRONLY | O_CREAT | O_EXCL, 0600, k);
            sqe->flags |= IOSQE_IO_LINK;
            sqe = io_uring_get_sqe(&ring);
            io_uring_prep_write(sqe, k, data, size, 0);
            sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
            sqe = io_uring_get_sqe(&ring);
            io_uring_prep_close_direct(sqe, k);
            sqe->flags |= IOSQE_IO_LINK;
            sqe = io_uring_get_sqe(&ring);
            io_uring_prep_renameat(sqe, folders[i / 1000], names[k][0], folders[i / 1000], names[k][1], 0);
        }
        rc = io_uring_submit_and_wait(&ring, 4 * n);
        if (rc < 0) fail("io_uring_submit_and_wait", -rc);
        for (int done = 0; done < 4 * n; done++) {
            struct io_uring_cqe *cqe;
            rc = io_uring_wait_cqe(&ring, &cqe);
            if (rc < 0) fail("io_uring_wait_cqe", -rc);
            if (cqe->res < 0) fail("a linked operation", -cqe->res);
            io_uring_cqe_seen(&ring, cqe);
        }
    }
    free(names);
    io_uring_queue_exit(&ring);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: remote-writes EMPTY-FOLDER syscalls|io_uring FILES BYTES\n");
        return 2;
    }
    int count = atoi(argv[3]);
    size_t size = (size_t)atol(argv[4]);
    if (count <= 0 || size == 0 || size > (1 << 20)) { fprintf(stderr, "remote-writes: FILES > 0, 0 < BYTES <= 1 MiB\n"); return 2; }
    int root = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0) fail(argv[1], errno);
    // The folders are made and opened before the clock starts.
    int *folders = calloc((size_t)count / 1000 + 1, sizeof *folders);
    for (int f = 0; f <= count / 1000; f++) {
        char name[32];
        snprintf(name, sizeof name, "d%d", f);
        if (mkdirat(root, name, 0700) != 0) fail("mkdirat", errno);
        folders[f] = openat(root, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (folders[f] < 0) fail("openat", errno);
    }
    char *data = malloc(size);
    memset(data, 'x', size);
    double before = cpu_seconds();
    if (strcmp(argv[2], "syscalls") == 0) {
        with_syscalls(folders, count, data, size);
    } else if (strcmp(argv[2], "io_uring") == 0) {
        with_io_uring(folders, count, data, size, 64);
    } else {
        fprintf(stderr, "remote-writes: syscalls or io_uring\n");
        return 2;
    }
    printf("%s %d files of %zu bytes: %.3f CPU-s\n", argv[2], count, size, cpu_seconds() - before);
    for (int f = 0; f <= count / 1000; f++) close(folders[f]);
    free(folders);
    free(data);
    close(root);
    return 0;
}
