#ifndef SQUEEZE_SYSTEM_H
#define SQUEEZE_SYSTEM_H

/// syncfs(2): Glibc declares it only under _GNU_SOURCE, which Swift's Glibc module does not
/// set. Returns 0, or -1 with errno set.
int squeeze_syncfs(int fd);

/// rename(2) that fails with EEXIST instead of replacing an existing target
/// (renameat2 with RENAME_NOREPLACE), so "do not overwrite" is one atomic step.
/// Returns 0, or -1 with errno set (EINVAL where the file system does not support it).
int squeeze_rename_noreplace(const char *from, const char *to);

/// copy_file_range(2) between explicit offsets (Glibc declares it only under _GNU_SOURCE):
/// the kernel copies, or shares extents where the file system can. Returns the bytes copied,
/// or -1 with errno set (EXDEV, EINVAL or ENOSYS where it cannot; callers fall back).
long squeeze_copy_file_range(int from, long long from_offset, int to, long long to_offset, unsigned long length);

/// sync_file_range(2) (Glibc declares it only under _GNU_SOURCE). `wait` 0 starts writeback of
/// the range and returns; 1 also waits for writeback already under way before, and for the
/// range's own after. Returns 0, or -1 with errno set.
int squeeze_sync_file_range(int fd, long long offset, long long length, int wait);

/// O_DIRECT (Glibc defines it only under _GNU_SOURCE): reads go from the device into the
/// caller's buffer, not through the page cache. Callers align offset, length and buffer.
int squeeze_o_direct(void);

/// Sets (`on` 1) or clears (0) O_DIRECT on an open descriptor (fcntl F_SETFL), keeping its
/// other status flags. Returns 0, or -1 with errno set.
int squeeze_set_direct(int fd, int on);

/// mallopt(3) M_MMAP_THRESHOLD and M_TRIM_THRESHOLD (Swift's Glibc module lacks malloc.h).
/// Returns 1 when both were set; the trim threshold is then remembered for
/// squeeze_release_freed_end.
int squeeze_tune_malloc(int mmap_threshold, int trim_threshold);

/// mallopt(3) M_ARENA_MAX: at most this many malloc arenas, whatever the number of threads.
/// Returns 1 when it was set.
int squeeze_limit_malloc_arenas(int arenas);

/// malloc_trim(3) with no padding: glibc gives the free pages inside every arena, and the top
/// of the main one, back to the kernel. Returns 1 when some memory was released.
int squeeze_trim_malloc(void);

/// Starts a stretch in which memory freed at the top of a malloc heap goes back to the kernel
/// at once: the trim threshold squeeze_tune_malloc set is 0 until the matching
/// squeeze_release_freed_end. malloc_trim cannot do this for the top of a thread's arena,
/// which glibc shrinks only as a free reaches it, and never past a threshold as large as the
/// arena's heap. Stretches may overlap (several threads); without squeeze_tune_malloc glibc's
/// own threshold is small already, and nothing changes.
void squeeze_release_freed_begin(void);

/// Ends a stretch squeeze_release_freed_begin started: the last one to end puts the tuned
/// trim threshold back.
void squeeze_release_freed_end(void);

#endif
