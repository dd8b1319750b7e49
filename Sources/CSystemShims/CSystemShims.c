#define _GNU_SOURCE
#include "CSystemShims.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int64_t ipawrap_copy_file_range(int fd_in, int64_t *off_in, int fd_out, int64_t *off_out, uint64_t len) {
#ifdef __linux__
    loff_t in = (loff_t)*off_in;
    loff_t out = (loff_t)*off_out;
    ssize_t copied = copy_file_range(fd_in, &in, fd_out, &out, (size_t)len, 0);
    if (copied >= 0) {
        *off_in = (int64_t)in;
        *off_out = (int64_t)out;
    }
    return (int64_t)copied;
#else
    (void)fd_in; (void)off_in; (void)fd_out; (void)off_out; (void)len;
    errno = ENOSYS;
    return -1;
#endif
}

int ipawrap_open_unnamed_file(const char *directory, mode_t mode) {
#if defined(__linux__) && defined(O_TMPFILE)
    return open(directory, O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
#else
    (void)directory; (void)mode;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

int ipawrap_link_unnamed_file(int fd, const char *path) {
#ifdef __linux__
    char procPath[64];
    snprintf(procPath, sizeof procPath, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, procPath, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
#else
    (void)fd; (void)path;
    errno = ENOSYS;
    return -1;
#endif
}

int ipawrap_exchange_paths(const char *first, const char *second) {
#if defined(__linux__) && defined(RENAME_EXCHANGE)
    return renameat2(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE);
#else
    (void)first; (void)second;
    errno = ENOSYS;
    return -1;
#endif
}
