#ifndef SQUEEZE_SYSTEM_H
#define SQUEEZE_SYSTEM_H

/// syncfs(2): Glibc declares it only under _GNU_SOURCE, which Swift's Glibc module does not
/// set. Returns 0, or -1 with errno set.
int squeeze_syncfs(int fd);

/// rename(2) that fails with EEXIST instead of replacing an existing target
/// (renameat2 with RENAME_NOREPLACE), so "do not overwrite" is one atomic step.
/// Returns 0, or -1 with errno set (EINVAL where the file system does not support it).
int squeeze_rename_noreplace(const char *from, const char *to);

#endif
