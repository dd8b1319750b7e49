"""The benchmark IPAs' Mach-O files (Scripts/make-bench-ipa, Scripts/make-small-app-ipa): realistic
arm64 iOS executables and dylibs signed ad hoc, as ld64 and `codesign -s -` lay them out, so
re-signers (ipawrap, codesign) can sign them.

    __PAGEZERO
    __TEXT      header, load commands, header padding, __text
    __LINKEDIT  link-edit data, then the embedded signature (LC_CODE_SIGNATURE, 16-byte aligned):
                a SHA-256 CodeDirectory over 4 KiB pages, empty requirements, an empty CMS wrapper

Written with struct and hashlib only, not with ipawrap. The caller's bytes stand for the code and
the link-edit data (random ones, or `machine_code`'s); the file has their size plus 56 bytes,
rounded down to 16."""
import hashlib
import struct

IDENTIFIER = b"com.example.sample"
PAGE = 4096
SEGMENT_PAGE = 0x4000
TEXT_VM = 0x1_0000_0000
# The load commands take 448 bytes; __text starts after 4 KiB of header padding, as in apps that
# keep room for more commands.
TEXT_OFFSET = 0x1000


def _command(cmd, payload, align=8):
    size = (8 + len(payload) + align - 1) // align * align
    return struct.pack("<II", cmd, size) + payload + b"\0" * (size - 8 - len(payload))


def _segment(name, vmaddr, vmsize, fileoff, filesize, prot, sections=b"", nsects=0):
    return _command(0x19, struct.pack("<16sQQQQiiII", name, vmaddr, vmsize, fileoff, filesize, prot, prot, nsects, 0) + sections)


def _blob(magic, payload):
    return struct.pack(">II", magic, 8 + len(payload)) + payload


def _signature_size(code_limit, identifier=IDENTIFIER):
    """Bytes the ad-hoc signature of [0, code_limit) takes, rounded up to 16."""
    slots = (code_limit + PAGE - 1) // PAGE
    directory = 88 + len(identifier) + 1 + (2 + slots) * 32
    return (12 + 3 * 8 + directory + 12 + 8 + 15) // 16 * 16


def _signature(image, code_limit, text_size, identifier=IDENTIFIER, main_binary=True):
    """SuperBlob: CodeDirectory (slot 0), requirements (slot 2), CMS wrapper (slot 0x10000)."""
    requirements = _blob(0xFADE0C01, struct.pack(">I", 0))
    cms = _blob(0xFADE0B01, b"")
    slots = (code_limit + PAGE - 1) // PAGE
    ident = identifier + b"\0"
    hash_offset = 88 + len(ident) + 2 * 32
    length = hash_offset + slots * 32
    header = struct.pack(
        ">IIIIIIIIIBBBBIIIIQQQQ", 0xFADE0C02, length, 0x20400, 0x2, hash_offset, 88, 2, slots, code_limit,
        32, 2, 0, 12, 0, 0, 0, 0, 0, 0, text_size, 1 if main_binary else 0)  # CS_ADHOC; exec segment = __TEXT
    special = hashlib.sha256(requirements).digest() + b"\0" * 32  # slot 2, then slot 1 (no Info.plist bound)
    pages = b"".join(hashlib.sha256(image[i:min(i + PAGE, code_limit)]).digest() for i in range(0, code_limit, PAGE))
    directory = header + ident + special + pages
    assert len(directory) == length
    blobs = [(0, directory), (2, requirements), (0x10000, cms)]
    offset = 12 + 8 * len(blobs)
    index = b""
    for slot, blob in blobs:
        index += struct.pack(">II", slot, offset)
        offset += len(blob)
    return struct.pack(">III", 0xFADE0CC0, offset, len(blobs)) + index + b"".join(blob for _, blob in blobs)


def machine_code(rng, size):
    """`size` bytes that deflate as the Swift runtime's libraries do (zlib's level 6 to 28%), and
    on which compressors spend their time as on real code (libdeflate at over twice zlib's speed,
    not at zlib's own as on long repeats): arm64-like instruction words (opcode classes of skewed
    frequency, mostly low registers, small immediates), recurring instruction sequences
    (prologues, epilogues, idioms), Swift-mangled symbol names and zero-filled alignment (over a
    third of the bytes, where real libraries have a fifth: their other content repeats more than
    ours), all drawn from `rng` (a random.Random)."""
    classes = [(rng.getrandbits(32) & 0xFFC00000, rng.choice([5, 10, 15]), rng.choice([0, 0, 0, 6, 9, 12])) for _ in range(60)]
    class_weights = [1.0 / (rank + 1) ** 1.3 for rank in range(len(classes))]
    registers = list(range(32))
    register_weights = [8 if r < 4 else 4 if r < 9 else 3 if 19 <= r <= 29 else 0.3 for r in registers]

    def instructions(count):
        picks = rng.choices(classes, class_weights, k=count)
        fields = rng.choices(registers, register_weights, k=3 * count)
        words = bytearray()
        for index, (fixed, register_bits, immediate_bits) in enumerate(picks):
            word = fixed | fields[3 * index] | fields[3 * index + 1] << 5
            if register_bits == 15:
                word |= fields[3 * index + 2] << 10
            if immediate_bits:
                word |= rng.choice([0, 1, 2, 4, 8, 16, rng.getrandbits(immediate_bits)]) << 10
            words += struct.pack("<I", word & 0xFFFFFFFF)
        return bytes(words)

    sequences = [instructions(rng.randint(3, 24)) for _ in range(1200)]
    sequence_weights = [1.0 / (rank + 1) ** 0.7 for rank in range(len(sequences))]
    letters = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    words = [bytes(rng.choice(letters) for _ in range(rng.randint(3, 12))) for _ in range(900)]
    symbols = [b"_$s" + b"".join(b"%d%s" % (len(word), word) for word in rng.sample(words, rng.randint(2, 5)))
               + rng.choice([b"C", b"V", b"O", b"Mn", b"fC", b"Wv"]) + b"\0" for _ in range(5000)]
    out = bytearray()
    while len(out) < size:
        kind = rng.random()
        if kind < 0.10:
            out += instructions(rng.randint(8, 120))
        elif kind < 0.25:
            out += b"".join(rng.choices(sequences, sequence_weights, k=rng.randint(2, 12)))
        elif kind < 0.87:
            out += b"".join(rng.choices(symbols, k=rng.randint(4, 40)))
        else:
            out += b"\0" * rng.randint(64, 4800)
    return bytes(out[:size])


def executable(body):
    return _image(body, IDENTIFIER, None)


def dylib(body, install_name, identifier):
    """An MH_DYLIB (as an app embeds the Swift runtime in Frameworks/), `install_name` its
    LC_ID_DYLIB (e.g. b"@rpath/libswiftCore.dylib"), signed ad hoc as `identifier`."""
    return _image(body, identifier, install_name)


def _image(body, identifier, install_name):
    total = (56 + len(body)) // 16 * 16
    # The signature's size depends on the pages it hashes, which end where it starts.
    size = _signature_size(total, identifier)
    while _signature_size(total - size, identifier) != size:
        size = _signature_size(total - size, identifier)
    code_limit = total - size
    linkedit_data = min(1 << 20, len(body) // 4)
    text_size = (code_limit - linkedit_data) // SEGMENT_PAGE * SEGMENT_PAGE
    linkedit_size = total - text_size

    text_section = struct.pack(
        "<16s16sQQIIIIIIII", b"__text", b"__TEXT", TEXT_VM + TEXT_OFFSET, text_size - TEXT_OFFSET, TEXT_OFFSET,
        2, 0, 0, 0x80000400, 0, 0, 0)
    is_dylib = install_name is not None
    text_vm = 0 if is_dylib else TEXT_VM
    if is_dylib:
        text_section = struct.pack(
            "<16s16sQQIIIIIIII", b"__text", b"__TEXT", TEXT_OFFSET, text_size - TEXT_OFFSET, TEXT_OFFSET,
            2, 0, 0, 0x80000400, 0, 0, 0)
    commands = [] if is_dylib else [_segment(b"__PAGEZERO", 0, TEXT_VM, 0, 0, 0)]
    commands += [
        _segment(b"__TEXT", text_vm, text_size, 0, text_size, 5, text_section, 1),
        _segment(b"__LINKEDIT", text_vm + text_size, (linkedit_size + SEGMENT_PAGE - 1) // SEGMENT_PAGE * SEGMENT_PAGE,
                 text_size, linkedit_size, 1),
    ]
    if is_dylib:
        # LC_ID_DYLIB: the install name, a timestamp, current and compatibility versions.
        commands.append(_command(0xD, struct.pack("<IIII", 24, 1, 5 << 16, 1 << 16) + install_name + b"\0"))
    else:
        commands.append(_command(0xE, struct.pack("<I", 12) + b"/usr/lib/dyld\0"))
    # Deployment target iOS 15.0, SDK 17.2, as before the executable was a real image.
    commands.append(_command(0x32, struct.pack("<IIII", 2, 15 << 16, 17 << 16 | 2 << 8, 0)))
    if not is_dylib:
        commands.append(_command(0x80000028, struct.pack("<QQ", TEXT_OFFSET, 0)))
    commands += [
        _command(0xC, struct.pack("<IIII", 24, 2, 1319 << 16, 1 << 16) + b"/usr/lib/libSystem.B.dylib\0"),
        _command(0x1D, struct.pack("<II", code_limit, size)),
    ]
    load_commands = b"".join(commands)
    # MH_EXECUTE with MH_NOUNDEFS | MH_DYLDLINK | MH_TWOLEVEL | MH_PIE; MH_DYLIB without MH_PIE.
    file_type, flags = (6, 0x00100085) if is_dylib else (2, 0x00200085)
    header = struct.pack("<IiiIIIII", 0xFEEDFACF, 0x0100000C, 0, file_type, len(commands), len(load_commands), flags, 0)
    prefix = header + load_commands
    assert len(prefix) <= TEXT_OFFSET
    image = prefix + b"\0" * (TEXT_OFFSET - len(prefix)) + body[:code_limit - TEXT_OFFSET]
    signature = _signature(image, code_limit, text_size, identifier, main_binary=not is_dylib)
    assert len(image) == code_limit and len(signature) <= size
    return image + signature + b"\0" * (size - len(signature))
