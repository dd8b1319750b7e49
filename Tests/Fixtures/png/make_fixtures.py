#!/usr/bin/env python3
"""Generates the PNG fixtures in this folder with nothing but the standard library.

    python3 Tests/Fixtures/png/make_fixtures.py

standard/NAME.png   a PNG of one colour type / bit depth / interlace / tRNS combination, written
                    by the small encoder below (its own filters, Adam7 and bit packing);
standard/NAME.rgba  the RGBA8 pixels a correct decoder must produce, computed from the source
                    samples (never by decoding), row-major, straight alpha; 16-bit samples are
                    reduced with round(v * 255 / 65535), low bit depths scaled to 0..255.
hostile/CODE-what.png  damaged or malicious files; the decoder must throw PNGError CODE.

Output is deterministic, so rerunning leaves git clean.
"""
import os
import random
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
SIGNATURE = b"\x89PNG\r\n\x1a\n"
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def chunk(kind, data, crc=None):
    if crc is None:
        crc = zlib.crc32(kind + data)
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc & 0xFFFFFFFF)


def ihdr(width, height, depth, color, interlace=0, compression=0, filter_method=0):
    return chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, color, compression, filter_method, interlace))


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filter_row(row, prev, kind, unit):
    out = bytearray(len(row))
    for i in range(len(row)):
        a = row[i - unit] if i >= unit else 0
        b = prev[i]
        c = prev[i - unit] if i >= unit else 0
        pred = [0, a, b, (a + b) // 2, paeth(a, b, c)][kind]
        out[i] = (row[i] - pred) & 0xFF
    return bytes(out)


def pack_row(samples, depth):
    """Samples (ints) into bytes, MSB first, rows padded to a byte."""
    if depth == 16:
        return b"".join(struct.pack(">H", s) for s in samples)
    if depth == 8:
        return bytes(samples)
    out = bytearray()
    acc, bits = 0, 0
    for s in samples:
        acc = (acc << depth) | s
        bits += depth
        if bits == 8:
            out.append(acc)
            acc, bits = 0, 0
    if bits:
        out.append(acc << (8 - bits))
    return bytes(out)


def scanlines(pixels, width, height, depth, color, interlace):
    """pixels[y][x] is a tuple of samples. Filters cycle 0..4 over successive rows."""
    unit = max(1, depth * CHANNELS[color] // 8)
    passes = ADAM7 if interlace else [(0, 0, 1, 1)]
    out = bytearray()
    counter = 0
    for x0, y0, dx, dy in passes:
        prev = None
        for y in range(y0, height, dy):
            samples = [s for x in range(x0, width, dx) for s in pixels[y][x]]
            if not samples:
                continue
            row = pack_row(samples, depth)
            kind = counter % 5
            counter += 1
            out.append(kind)
            out += filter_row(row, prev or bytes(len(row)), kind, unit)
            prev = row
    return bytes(out)


def png(width, height, depth, color, pixels, interlace=0, before_idat=b"", idat_split=None):
    data = zlib.compress(scanlines(pixels, width, height, depth, color, interlace), 9)
    idats = [data] if not idat_split else [data[i:i + idat_split] for i in range(0, len(data), idat_split)]
    return (SIGNATURE + ihdr(width, height, depth, color, interlace) + before_idat
            + b"".join(chunk(b"IDAT", d) for d in idats) + chunk(b"IEND", b""))


def to8(value, depth):
    if depth == 16:
        return (value * 255 + 32767) // 65535
    return value * 255 // ((1 << depth) - 1)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(data)


def standard_fixtures():
    rng = random.Random(20240601)
    width, height = 13, 11
    combos = [(0, d) for d in (1, 2, 4, 8, 16)] + [(2, 8), (2, 16), (3, 1), (3, 2), (3, 4), (3, 8),
                                                    (4, 8), (4, 16), (6, 8), (6, 16)]
    for color, depth in combos:
        top = (1 << depth) - 1
        for interlace in (0, 1):
            for with_trns in ((False, True) if color in (0, 2, 3) else (False,)):
                channels = CHANNELS[color]
                before = b""
                palette = None
                if color == 3:
                    entries = min(top + 1, 200)  # leave some indices past the palette
                    palette = [(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(entries)]
                    before += chunk(b"PLTE", bytes(v for entry in palette for v in entry))
                pixels = []
                for y in range(height):
                    row = []
                    for x in range(width):
                        if color == 3:
                            # Mostly valid indices; a few past the end read as opaque black.
                            limit = top if (x + y) % 7 == 0 else len(palette) - 1
                            row.append((rng.randint(0, limit),))
                        else:
                            row.append(tuple(rng.randint(0, top) for _ in range(channels)))
                    pixels.append(row)
                key = None
                alphas = None
                if with_trns:
                    if color == 3:
                        alphas = [rng.randrange(256) for _ in range(max(1, len(palette) // 2))]
                        before += chunk(b"tRNS", bytes(alphas))
                    else:
                        key = pixels[1][2]  # make sure the key colour occurs
                        pixels[5][7] = key
                        before += chunk(b"tRNS", b"".join(struct.pack(">H", v) for v in key))
                expected = bytearray()
                for y in range(height):
                    for x in range(width):
                        p = pixels[y][x]
                        if color == 0:
                            g = to8(p[0], depth)
                            expected += bytes((g, g, g, 0 if key == p else 255))
                        elif color == 2:
                            expected += bytes((to8(p[0], depth), to8(p[1], depth), to8(p[2], depth), 0 if key == p else 255))
                        elif color == 3:
                            index = p[0]
                            if index < len(palette):
                                r, g, b = palette[index]
                                a = alphas[index] if alphas and index < len(alphas) else 255
                            else:
                                r, g, b, a = 0, 0, 0, 255
                            expected += bytes((r, g, b, a))
                        elif color == 4:
                            g = to8(p[0], depth)
                            expected += bytes((g, g, g, to8(p[1], depth)))
                        else:
                            expected += bytes(to8(v, depth) for v in p)
                name = "type%d-%dbit%s%s" % (color, depth, "-adam7" if interlace else "", "-trns" if with_trns else "")
                data = png(width, height, depth, color, pixels, interlace, before, idat_split=97 if interlace else None)
                write(os.path.join(HERE, "standard", name + ".png"), data)
                write(os.path.join(HERE, "standard", name + ".rgba"), bytes(expected))
    # Tiny interlaced images leave Adam7 passes empty.
    for w, h in ((1, 1), (3, 2), (2, 9)):
        pixels = [[(rng.randrange(256), rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(w)] for _ in range(h)]
        name = "type6-8bit-adam7-%dx%d" % (w, h)
        write(os.path.join(HERE, "standard", name + ".png"), png(w, h, 8, 6, pixels, 1))
        write(os.path.join(HERE, "standard", name + ".rgba"), bytes(v for row in pixels for p in row for v in p))


def hostile_fixtures():
    out = os.path.join(HERE, "hostile")
    rng = random.Random(7)
    w, h = 8, 8
    rgba = [[(rng.randrange(256), rng.randrange(256), rng.randrange(256), 255) for _ in range(w)] for _ in range(h)]
    raw = scanlines(rgba, w, h, 8, 6, 0)
    good_idat = chunk(b"IDAT", zlib.compress(raw, 9))
    head = SIGNATURE + ihdr(w, h, 8, 6)
    tail = chunk(b"IEND", b"")
    valid = head + good_idat + tail
    files = {}

    files["PNG_SIGNATURE-jpeg.png"] = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(32)
    files["PNG_SIGNATURE-empty.png"] = b""
    files["PNG_SIGNATURE-text.png"] = b"<?xml version='1.0'?><plist/>"
    files["PNG_TRUNCATED-signature-only.png"] = SIGNATURE
    files["PNG_TRUNCATED-partial-signature.png"] = SIGNATURE[:5]
    files["PNG_TRUNCATED-cut-inside-idat.png"] = valid[:len(head) + 20]
    files["PNG_TRUNCATED-cut-inside-chunk-header.png"] = head + good_idat[:6]
    files["PNG_TRUNCATED-length-past-end.png"] = head + struct.pack(">I", 0x10000) + b"IDAT" + bytes(40)

    files["PNG_CRC_MISMATCH-ihdr.png"] = (SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0), crc=0x12345678)
                                          + good_idat + tail)
    files["PNG_CRC_MISMATCH-idat.png"] = head + chunk(b"IDAT", zlib.compress(raw, 9), crc=0) + tail
    files["PNG_CRC_MISMATCH-text.png"] = head + chunk(b"tEXt", b"Comment\x00hi", crc=1) + good_idat + tail
    stream = bytearray(zlib.compress(raw, 9))
    stream[-1] ^= 0xFF
    files["PNG_CRC_MISMATCH-adler32.png"] = head + chunk(b"IDAT", bytes(stream)) + tail

    files["PNG_CHUNK-ihdr-not-first.png"] = SIGNATURE + chunk(b"gAMA", struct.pack(">I", 45455)) + ihdr(w, h, 8, 6) + good_idat + tail
    files["PNG_CHUNK-bad-type-code.png"] = head + chunk(b"ID\x00T", b"abc") + good_idat + tail
    files["PNG_CHUNK-length-over-2gib.png"] = head + struct.pack(">I", 0x80000000) + b"IDAT" + bytes(16)
    files["PNG_CHUNK-second-ihdr.png"] = head + ihdr(w, h, 8, 6) + good_idat + tail
    files["PNG_CHUNK-cgbi-after-ihdr.png"] = head + chunk(b"CgBI", bytes.fromhex("50002002")) + good_idat + tail

    files["PNG_HEADER-ihdr-length.png"] = SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBB", w, h, 8, 6, 0, 0)) + good_idat + tail
    files["PNG_HEADER-bit-depth-3.png"] = SIGNATURE + ihdr(w, h, 3, 0) + good_idat + tail
    files["PNG_HEADER-rgb-4bit.png"] = SIGNATURE + ihdr(w, h, 4, 2) + good_idat + tail
    files["PNG_HEADER-color-type-5.png"] = SIGNATURE + ihdr(w, h, 8, 5) + good_idat + tail
    files["PNG_HEADER-interlace-2.png"] = SIGNATURE + ihdr(w, h, 8, 6, interlace=2) + good_idat + tail
    files["PNG_HEADER-compression-1.png"] = SIGNATURE + ihdr(w, h, 8, 6, compression=1) + good_idat + tail

    files["PNG_DIMENSIONS-7fffffff-square.png"] = SIGNATURE + ihdr(0x7FFFFFFF, 0x7FFFFFFF, 8, 6) + good_idat + tail
    files["PNG_DIMENSIONS-zero-width.png"] = SIGNATURE + ihdr(0, h, 8, 6) + good_idat + tail
    files["PNG_DIMENSIONS-width-over-2-31.png"] = SIGNATURE + ihdr(0x80000000, 1, 8, 6) + good_idat + tail
    files["PNG_DIMENSIONS-over-default-limit.png"] = SIGNATURE + ihdr(20000, 1, 8, 6) + good_idat + tail
    files["PNG_DIMENSIONS-over-pixel-limit.png"] = SIGNATURE + ihdr(16384, 16384, 8, 6) + good_idat + tail

    pal_raw = scanlines([[(1,)] * w for _ in range(h)], w, h, 8, 3, 0)
    files["PNG_PALETTE-missing-plte.png"] = SIGNATURE + ihdr(w, h, 8, 3) + chunk(b"IDAT", zlib.compress(pal_raw)) + tail
    files["PNG_PALETTE-plte-length.png"] = (SIGNATURE + ihdr(w, h, 8, 3) + chunk(b"PLTE", b"\x01\x02\x03\x04")
                                            + chunk(b"IDAT", zlib.compress(pal_raw)) + tail)

    files["PNG_NO_IMAGE_DATA-no-idat.png"] = head + tail
    files["PNG_NO_IMAGE_DATA-no-idat-no-iend.png"] = head

    files["PNG_INFLATE-corrupt-stream.png"] = head + chunk(b"IDAT", b"\x78\x9c" + bytes([0xff] * 40)) + tail
    files["PNG_INFLATE-preset-dictionary.png"] = head + chunk(b"IDAT", b"\x78\xbb" + bytes(8)) + tail
    files["PNG_INFLATE-raw-deflate-in-standard-png.png"] = head + chunk(b"IDAT", zlib.compress(raw, 9)[2:-4]) + tail

    bomb = zlib.compressobj(9)
    bomb_data = bomb.compress(bytes(16 * 1024 * 1024)) + bomb.flush()
    files["PNG_DATA_SIZE-zlib-bomb.png"] = head + chunk(b"IDAT", bomb_data) + tail
    files["PNG_DATA_SIZE-short-stream.png"] = head + chunk(b"IDAT", zlib.compress(raw[: len(raw) // 2], 9)) + tail
    files["PNG_DATA_SIZE-one-byte-too-many.png"] = head + chunk(b"IDAT", zlib.compress(raw + b"\x00", 9)) + tail

    def raw_deflate(data):
        compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
        return compressor.compress(data) + compressor.flush()

    cgbi = chunk(b"CgBI", bytes.fromhex("50002002"))
    files["PNG_DATA_SIZE-cgbi-wrong-size.png"] = (SIGNATURE + cgbi + ihdr(2 * w, 2 * h, 8, 6)
                                                 + chunk(b"IDAT", raw_deflate(raw)) + tail)
    files["PNG_DATA_SIZE-cgbi-bomb.png"] = (SIGNATURE + cgbi + ihdr(w, h, 8, 6)
                                           + chunk(b"IDAT", raw_deflate(bytes(4 * 1024 * 1024))) + tail)
    files["PNG_INFLATE-cgbi-garbage.png"] = SIGNATURE + cgbi + ihdr(w, h, 8, 6) + chunk(b"IDAT", bytes([0xff] * 64)) + tail

    bad_filter = bytearray(raw)
    bad_filter[(w * 4 + 1) * 3] = 5
    files["PNG_FILTER-type-5.png"] = head + chunk(b"IDAT", zlib.compress(bytes(bad_filter), 9)) + tail

    files["PNG_UNSUPPORTED-unknown-critical-chunk.png"] = head + chunk(b"ZZZZ", b"?") + good_idat + tail
    files["PNG_UNSUPPORTED-cgbi-16-bit.png"] = SIGNATURE + cgbi + ihdr(w, h, 16, 6) + chunk(b"IDAT", raw_deflate(raw)) + tail
    files["PNG_UNSUPPORTED-cgbi-palette.png"] = (SIGNATURE + cgbi + ihdr(w, h, 8, 3) + chunk(b"PLTE", bytes(6))
                                                + chunk(b"IDAT", raw_deflate(pal_raw)) + tail)

    for name, data in files.items():
        write(os.path.join(out, name), data)


if __name__ == "__main__":
    standard_fixtures()
    hostile_fixtures()
