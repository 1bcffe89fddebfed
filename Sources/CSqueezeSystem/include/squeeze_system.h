#ifndef SQUEEZE_SYSTEM_H
#define SQUEEZE_SYSTEM_H

/// syncfs(2): Glibc declares it only under _GNU_SOURCE, which Swift's Glibc module does not
/// set. Returns 0, or -1 with errno set.
int squeeze_syncfs(int fd);

#endif
