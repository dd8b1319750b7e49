#include "FuzzDriver.h"

#include <stdlib.h>

// libFuzzer's driver (compiler-rt, LLVM 12 and later), linked in by -sanitize=fuzzer.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

void ipawrap_fuzz_main(int argc, char **argv, int (*callback)(const uint8_t *data, size_t size)) {
    exit(LLVMFuzzerRunDriver(&argc, &argv, callback));
}
