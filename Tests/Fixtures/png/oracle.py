#!/usr/bin/env python3
"""An independent check of PNGs this project writes, using only zlib, binascii and struct.

    python3 oracle.py IN.png OUT.rgba

Verifies the signature and every chunk CRC (binascii.crc32), that IDAT is a zlib stream with a
valid Adler-32 (zlib.decompress), that the data has exactly the size IHDR implies, undoes the
filters, and writes the RGBA8 pixels (alpha 255 for colour type 2) to OUT.rgba. Prints the chunk
types, one per line. Handles what PNGEncoder writes: 8-bit RGB or RGBA, not interlaced.
Exits 1 with a message on any defect.
"""
import binascii
import struct
import sys
import zlib


def fail(message):
    print("oracle: " + message, file=sys.stderr)
    sys.exit(1)


def main(source, target):
    data = open(source, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("bad signature")
    pos, chunks = 8, []
    while pos < len(data):
        if pos + 12 > len(data):
            fail("truncated chunk header at %d" % pos)
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if len(body) != length or pos + 12 + length > len(data):
            fail("truncated chunk %r" % kind)
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if binascii.crc32(kind + body) & 0xFFFFFFFF != crc:
            fail("CRC mismatch in %r" % kind)
        chunks.append((kind, body))
        pos += 12 + length
    if not chunks or chunks[0][0] != b"IHDR" or chunks[-1][0] != b"IEND":
        fail("chunks must run from IHDR to IEND")
    width, height, depth, color, comp, filt, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    if depth != 8 or color not in (2, 6) or interlace != 0 or comp != 0 or filt != 0:
        fail("unexpected IHDR %r" % (chunks[0][1],))
    channels = 4 if color == 6 else 3
    try:
        raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    except zlib.error as error:
        fail("zlib: %s" % error)
    stride = width * channels
    if len(raw) != height * (stride + 1):
        fail("image data is %d bytes, expected %d" % (len(raw), height * (stride + 1)))
    out = bytearray()
    prev = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = row[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if kind == 0:
                pred = 0
            elif kind == 1:
                pred = a
            elif kind == 2:
                pred = b
            elif kind == 3:
                pred = (a + b) // 2
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            else:
                fail("filter type %d" % kind)
            row[i] = (row[i] + pred) & 0xFF
        for x in range(width):
            out += row[x * channels:x * channels + channels]
            if channels == 3:
                out.append(255)
        prev = row
    open(target, "wb").write(bytes(out))
    for kind, _ in chunks:
        print(kind.decode("latin-1"))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        fail("usage: oracle.py IN.png OUT.rgba")
    main(sys.argv[1], sys.argv[2])
