#ifndef IPAWRAP_FUZZ_DRIVER_H
#define IPAWRAP_FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer's driver on the command line with `callback` as the per-input function, then
/// exits with its status. Harnesses call this from their own main because SwiftPM gives every
/// executable its own entry point, so libFuzzer's `main` is never used.
_Noreturn void ipawrap_fuzz_main(int argc, char **argv, int (*callback)(const uint8_t *data, size_t size));

/// An anonymous in-memory file (memfd) holding `size` bytes of `data`, for readers that take a
/// path: open it as `/proc/self/fd/N`. Returns the descriptor (the caller closes it) or -1.
int ipawrap_fuzz_memory_file(const uint8_t *data, size_t size);

#endif
