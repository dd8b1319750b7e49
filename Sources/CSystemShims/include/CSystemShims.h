#ifndef IPAWRAP_CSYSTEMSHIMS_H
#define IPAWRAP_CSYSTEMSHIMS_H

#include <stdint.h>
#include <sys/types.h>

/// copy_file_range(2): in-kernel copy between two files (reflink or page-cache copy on Linux).
/// Returns bytes copied, 0 at end of input, or -1 with errno set (ENOSYS/EXDEV/EINVAL mean
/// "fall back to read/write").
int64_t ipawrap_copy_file_range(int fd_in, int64_t *off_in, int fd_out, int64_t *off_out, uint64_t len);

/// Opens an unnamed file in `directory` (O_TMPFILE) with the given mode, or -1 with errno set.
/// A process killed before the file is linked leaves nothing behind.
int ipawrap_open_unnamed_file(const char *directory, mode_t mode);

/// Gives an O_TMPFILE file a name with linkat(2) through /proc/self/fd, or -1 with errno set.
int ipawrap_link_unnamed_file(int fd, const char *path);

/// Swaps what two paths name, both of which exist, in one step (renameat2(2) with
/// RENAME_EXCHANGE), or -1 with errno set (EINVAL where the file system cannot).
int ipawrap_exchange_paths(const char *first, const char *second);

#endif
