#define _GNU_SOURCE
#include <unistd.h>
#include "squeeze_system.h"

int squeeze_syncfs(int fd) {
    return syncfs(fd);
}
