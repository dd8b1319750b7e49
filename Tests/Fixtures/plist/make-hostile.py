#!/usr/bin/env python3
"""Writes the hostile property lists in hostile/.

Each file is named CODE--what.ext, where CODE is the PropertyListError code that reading it must
give (`ipawrap` prints it as error[CODE]). Run from this folder: python3 make-hostile.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "hostile")
XML_HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
            '"http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n')


def write(name, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(OUT, name), "wb") as handle:
        handle.write(data)


def bplist(objects, top=0, offset_size=None, ref_size=1, count=None, table_offset=None, offsets=None,
           tail=b""):
    """A bplist00 from raw object bytes; every trailer field can be overridden."""
    body = bytearray(b"bplist00")
    real_offsets = []
    for obj in objects:
        real_offsets.append(len(body))
        body += obj
    body += tail
    table = len(body)
    offsets = real_offsets if offsets is None else offsets
    size = offset_size if offset_size is not None else (1 if table < 256 else 2 if table < 65536 else 4)
    for value in offsets:
        body += value.to_bytes(max(size, 1), "big")
    body += bytes(6) + bytes([size, ref_size])
    body += struct.pack(">QQQ", len(objects) if count is None else count, top,
                        table if table_offset is None else table_offset)
    return bytes(body)


def main():
    os.makedirs(OUT, exist_ok=True)
    for old in os.listdir(OUT):
        os.remove(os.path.join(OUT, old))

    # --- binary: trailer ---------------------------------------------------------------------
    good = bplist([b"\xa1\x01", b"\x51a"])  # ["a"]
    write("PLIST_BINARY_TRAILER--header-only.plist", b"bplist00")
    write("PLIST_BINARY_TRAILER--truncated-trailer.plist", good[:-7])
    write("PLIST_BINARY_TRAILER--offset-size-zero.plist", bplist([b"\x09"], offset_size=0))
    write("PLIST_BINARY_TRAILER--ref-size-nine.plist", bplist([b"\x09"], ref_size=9))
    write("PLIST_BINARY_TRAILER--zero-objects.plist", bplist([b"\x09"], count=0, offsets=[], tail=b"\x00"))
    write("PLIST_BINARY_TRAILER--top-object-out-of-range.plist", bplist([b"\x09"], top=5))
    write("PLIST_BINARY_TRAILER--object-count-2e60.plist", bplist([b"\x09"], count=1 << 60))
    write("PLIST_BINARY_TRAILER--table-offset-past-end.plist", bplist([b"\x09"], table_offset=1 << 40))
    write("PLIST_BINARY_TRAILER--table-offset-in-header.plist", bplist([b"\x09"], table_offset=3))

    # --- binary: offsets and references ------------------------------------------------------
    write("PLIST_BINARY_OFFSET--offset-past-table.plist", bplist([b"\xa1\x01", b"\x51a"], offsets=[8, 200]))
    write("PLIST_BINARY_OFFSET--offset-in-header.plist", bplist([b"\xa1\x01", b"\x51a"], offsets=[8, 2]))
    write("PLIST_BINARY_REF--array-ref-out-of-range.plist", bplist([b"\xa1\x07", b"\x51a"]))
    write("PLIST_BINARY_REF--dict-value-ref-out-of-range.plist", bplist([b"\xd1\x01\x09", b"\x51a"]))

    # --- binary: graph -----------------------------------------------------------------------
    write("PLIST_CYCLE--self-referencing-array.plist", bplist([b"\xa1\x00"]))
    write("PLIST_CYCLE--dict-array-cycle.plist", bplist([b"\xd1\x01\x02", b"\x51k", b"\xa1\x00"]))
    depth = 10000
    nested = [b"\xa1" + (i + 1).to_bytes(2, "big") for i in range(depth)] + [b"\x09"]
    write("PLIST_TOO_DEEP--10000-nested-arrays.plist", bplist(nested, ref_size=2))
    # 64 arrays, each holding the next one twice: 2^64 objects once expanded.
    levels = 64
    bomb = [b"\xa2" + bytes([i + 1, i + 1]) for i in range(levels)] + [b"\x51x"]
    write("PLIST_TOO_MANY_OBJECTS--shared-reference-bomb.plist", bplist(bomb))

    # --- binary: counts ----------------------------------------------------------------------
    write("PLIST_BINARY_COUNT--array-count-2e60.plist",
          bplist([b"\xaf\x13" + (1 << 60).to_bytes(8, "big") + b"\x01", b"\x09"]))
    write("PLIST_BINARY_COUNT--data-count-2e60.plist", bplist([b"\x4f\x13" + (1 << 60).to_bytes(8, "big")]))
    write("PLIST_BINARY_COUNT--string-count-past-table.plist", bplist([b"\x5f\x10\xff" + b"abc"]))
    write("PLIST_BINARY_COUNT--dict-count-2e60.plist",
          bplist([b"\xdf\x13" + (1 << 60).to_bytes(8, "big"), b"\x09"]))

    # --- binary: objects ---------------------------------------------------------------------
    write("PLIST_BINARY_OBJECT--null-marker.plist", bplist([b"\x00"]))
    write("PLIST_BINARY_OBJECT--set-marker.plist", bplist([b"\xc1\x01", b"\x09"]))
    write("PLIST_BINARY_OBJECT--utf8-string-marker.plist", bplist([b"\x71a"]))
    write("PLIST_BINARY_OBJECT--integer-32-bytes.plist", bplist([b"\x15" + bytes(32)]))
    write("PLIST_BINARY_OBJECT--non-string-key.plist", bplist([b"\xd1\x01\x01", b"\x10\x05"]))
    write("PLIST_BINARY_OBJECT--ascii-string-high-byte.plist", bplist([b"\x52a\xe9"]))
    write("PLIST_BINARY_OBJECT--utf16-lone-surrogate.plist", bplist([b"\x61\xd8\x00"]))
    write("PLIST_BINARY_OBJECT--real-past-object-area.plist", bplist([b"\x23\x00\x00"]))
    write("PLIST_BINARY_OBJECT--count-not-an-integer.plist", bplist([b"\x5f\x51a", b"\x09"]))

    # --- formats -----------------------------------------------------------------------------
    write("PLIST_UNSUPPORTED_FORMAT--empty.plist", b"")
    write("PLIST_UNSUPPORTED_FORMAT--openstep-text.plist", '{\n    CFBundleName = "App";\n}\n')
    write("PLIST_UNSUPPORTED_FORMAT--json.plist", '{"CFBundleName": "App"}\n')
    write("PLIST_UNSUPPORTED_FORMAT--bplist16.plist", b"bplist16" + bytes(40))
    write("PLIST_UNSUPPORTED_FORMAT--png.plist", b"\x89PNG\r\n\x1a\n" + bytes(24))

    # --- XML ---------------------------------------------------------------------------------
    laughs = "".join(
        '  <!ENTITY lol%d "%s">\n' % (i, "&lol%d;" % (i - 1) * 10 if i else "lol") for i in range(10))
    write("PLIST_XML_ENTITY--billion-laughs.plist",
          '<?xml version="1.0"?>\n<!DOCTYPE plist [\n%s]>\n<plist version="1.0"><string>&lol9;</string></plist>\n'
          % laughs)
    write("PLIST_XML_ENTITY--external-entity.plist",
          '<?xml version="1.0"?>\n<!DOCTYPE plist [\n  <!ENTITY xxe SYSTEM "file:///etc/passwd">\n]>\n'
          '<plist version="1.0"><string>&xxe;</string></plist>\n')
    write("PLIST_XML_ENTITY--external-parameter-entity.plist",
          '<?xml version="1.0"?>\n<!DOCTYPE plist [\n  <!ENTITY % remote SYSTEM "http://127.0.0.1:9/evil.dtd">\n'
          '  %remote;\n]>\n<plist version="1.0"><string>x</string></plist>\n')
    write("PLIST_XML_ENTITY--undeclared-entity-reference.plist",
          XML_HEAD + '<plist version="1.0">\n<dict>\n\t<key>a</key>\n\t<string>&secret;</string>\n</dict>\n</plist>\n')
    write("PLIST_TOO_DEEP--10000-nested-xml-arrays.plist",
          XML_HEAD + '<plist version="1.0">\n' + "<array>" * 10000 + "</array>" * 10000 + "\n</plist>\n")
    write("PLIST_MALFORMED_XML--unclosed-dict.plist",
          XML_HEAD + '<plist version="1.0">\n<dict>\n\t<key>a</key>\n\t<string>b</string>\n</plist>\n')
    write("PLIST_MALFORMED_XML--bare-ampersand.plist",
          XML_HEAD + '<plist version="1.0">\n<string>Tom & Jerry</string>\n</plist>\n')
    write("PLIST_MALFORMED_XML--invalid-utf8.plist",
          XML_HEAD.encode() + b'<plist version="1.0">\n<string>\xff\xfe</string>\n</plist>\n')
    write("PLIST_XML_STRUCTURE--key-without-value.plist",
          XML_HEAD + '<plist version="1.0">\n<dict>\n\t<key>a</key>\n</dict>\n</plist>\n')
    write("PLIST_XML_STRUCTURE--value-without-key.plist",
          XML_HEAD + '<plist version="1.0">\n<dict>\n\t<string>a</string>\n</dict>\n</plist>\n')
    write("PLIST_XML_STRUCTURE--unknown-element.plist",
          XML_HEAD + '<plist version="1.0">\n<dict>\n\t<key>a</key>\n\t<script>x</script>\n</dict>\n</plist>\n')
    write("PLIST_XML_STRUCTURE--two-root-objects.plist",
          XML_HEAD + '<plist version="1.0">\n<string>a</string>\n<string>b</string>\n</plist>\n')
    write("PLIST_XML_STRUCTURE--empty-plist.plist", XML_HEAD + '<plist version="1.0">\n</plist>\n')
    write("PLIST_XML_STRUCTURE--text-in-dict.plist",
          XML_HEAD + '<plist version="1.0">\n<dict>\n\tstray\n</dict>\n</plist>\n')
    write("PLIST_XML_VALUE--integer-not-a-number.plist",
          XML_HEAD + '<plist version="1.0">\n<integer>12abc</integer>\n</plist>\n')
    write("PLIST_XML_VALUE--integer-beyond-128-bits.plist",
          XML_HEAD + '<plist version="1.0">\n<integer>%d</integer>\n</plist>\n' % (1 << 200))
    write("PLIST_XML_VALUE--bad-date.plist",
          XML_HEAD + '<plist version="1.0">\n<date>yesterday</date>\n</plist>\n')
    write("PLIST_XML_VALUE--bad-real.plist", XML_HEAD + '<plist version="1.0">\n<real>0x1p3</real>\n</plist>\n')
    write("PLIST_XML_VALUE--non-ascii-base64.plist",
          XML_HEAD + '<plist version="1.0">\n<data>QUJD\u00e9</data>\n</plist>\n')


if __name__ == "__main__":
    main()
