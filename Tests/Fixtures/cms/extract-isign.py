#!/usr/bin/env python3
"""Extracts the arm64 slice's CodeDirectory and CMS signature from isign's Xcode-signed
Tests/Fixtures/isign/Test.app/isignTestApp (Apache-2.0, see ../isign/LICENSE.txt) into
isign-arm64.codedirectory (the slot-0 blob, the CMS's detached content) and isign-arm64.cms
(the 0xFADE0B01 blob's payload, zero padding included). Python standard library only, written
independently of ipawrap's Mach-O reader; CMSTests checks the committed files equal its output."""
import os
import struct
import sys

here = os.path.dirname(os.path.abspath(__file__))
binary = open(os.path.join(here, "..", "isign", "Test.app", "isignTestApp"), "rb").read()


def arm64_slice(data):
    magic, count = struct.unpack(">II", data[:8])
    assert magic == 0xCAFEBABE, "not a fat file"
    for index in range(count):
        cputype, _, offset, size, _ = struct.unpack(">iiIII", data[8 + 20 * index:28 + 20 * index])
        if cputype == 0x0100000C:
            return data[offset:offset + size]
    sys.exit("no arm64 slice")


def superblob(macho):
    assert struct.unpack("<I", macho[:4])[0] == 0xFEEDFACF, "not a 64-bit Mach-O"
    count = struct.unpack("<I", macho[16:20])[0]
    offset = 32
    for _ in range(count):
        command, size = struct.unpack("<II", macho[offset:offset + 8])
        if command == 0x1D:  # LC_CODE_SIGNATURE
            start, length = struct.unpack("<II", macho[offset + 8:offset + 16])
            return macho[start:start + length]
        offset += size
    sys.exit("no LC_CODE_SIGNATURE")


blob = superblob(arm64_slice(binary))
magic, _, count = struct.unpack(">III", blob[:12])
assert magic == 0xFADE0CC0, "not a SuperBlob"
for index in range(count):
    slot, offset = struct.unpack(">II", blob[12 + 8 * index:20 + 8 * index])
    kind, length = struct.unpack(">II", blob[offset:offset + 8])
    if slot == 0:
        codedirectory = blob[offset:offset + length]
    elif slot == 0x10000 and kind == 0xFADE0B01:
        cms = blob[offset + 8:offset + length]
out = sys.argv[1] if len(sys.argv) > 1 else here
open(os.path.join(out, "isign-arm64.codedirectory"), "wb").write(codedirectory)
open(os.path.join(out, "isign-arm64.cms"), "wb").write(cms)
