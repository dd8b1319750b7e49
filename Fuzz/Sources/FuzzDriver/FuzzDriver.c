#define _GNU_SOURCE
#include "FuzzDriver.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

// libFuzzer's driver (compiler-rt, LLVM 12 and later), linked in by -sanitize=fuzzer.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

void ipawrap_fuzz_main(int argc, char **argv, int (*callback)(const uint8_t *data, size_t size)) {
    exit(LLVMFuzzerRunDriver(&argc, &argv, callback));
}

int ipawrap_fuzz_memory_file(const uint8_t *data, size_t size) {
    int fd = memfd_create("ipawrap-fuzz", MFD_CLOEXEC);
    if (fd < 0) return -1;
    size_t written = 0;
    while (written < size) {
        ssize_t count = write(fd, data + written, size - written);
        if (count <= 0) {
            close(fd);
            return -1;
        }
        written += (size_t)count;
    }
    return fd;
}
