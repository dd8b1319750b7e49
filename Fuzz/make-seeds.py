#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz harnesses other than the plist ones (whose seeds are the
plist hostile set): Fuzz/seeds/fuzz-TARGET/.

Seeds are the generated and hostile files of Tests/Fixtures (all made by this project), plus small
files made here where the fixtures have none that fit libFuzzer's input size (zip archives, IPAs,
small CgBI PNGs, an Xcode-style binary Info.plist, CodeResources and code signatures).
Run from anywhere: `python3 Fuzz/make-seeds.py`. Output is deterministic, so re-running it
changes nothing unless the fixtures or this script changed.
"""
import hashlib
import io
import os
import plistlib
import shutil
import struct
import zipfile
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures")
SEEDS = os.path.join(ROOT, "Fuzz", "seeds")
# Fixed timestamp so the zip seeds are byte-identical on every run.
DATE = (2024, 1, 2, 3, 4, 6)


def fixture(path):
    with open(os.path.join(FIXTURES, path), "rb") as handle:
        return handle.read()


# An Info.plist as Xcode writes it (binary, no icon keys), made here.
XCODE_INFO = plistlib.dumps({
    "BuildMachineOSBuild": "23C71", "CFBundleDevelopmentRegion": "en", "CFBundleExecutable": "XcodeShaped",
    "CFBundleIdentifier": "com.example.sample", "CFBundleInfoDictionaryVersion": "6.0", "CFBundleName": "XcodeShaped",
    "CFBundlePackageType": "APPL", "CFBundleShortVersionString": "1.0", "CFBundleSignature": "????",
    "CFBundleSupportedPlatforms": ["iPhoneOS"], "CFBundleVersion": "1", "DTPlatformName": "iphoneos",
    "DTSDKName": "iphoneos17.2", "DTXcode": "1520", "LSRequiresIPhoneOS": True, "MinimumOSVersion": "12.0",
    "UIDeviceFamily": [1], "UILaunchStoryboardName": "LaunchScreen", "UIMainStoryboardFile": "Main",
    "UIRequiredDeviceCapabilities": ["armv7"],
    "UISupportedInterfaceOrientations": ["UIInterfaceOrientationPortrait", "UIInterfaceOrientationLandscapeLeft"],
}, fmt=plistlib.FMT_BINARY, sort_keys=True)


def reset(target):
    folder = os.path.join(SEEDS, target)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    return folder


def write(folder, name, data):
    with open(os.path.join(folder, name), "wb") as handle:
        handle.write(data)


def copy_tree(folder, source, prefix, limit, suffixes=None):
    """Copies the files of Tests/Fixtures/`source` no larger than `limit` bytes."""
    directory = os.path.join(FIXTURES, source)
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if not os.path.isfile(path) or os.path.getsize(path) > limit:
            continue
        if suffixes and not name.endswith(suffixes):
            continue
        shutil.copyfile(path, os.path.join(folder, prefix + name))


# MARK: PNG and CgBI


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def cgbi_png(width, height, alpha=True, interlaced=False, idot=False, zlib_wrapped=False):
    """An Apple CgBI PNG: premultiplied BGR(A) rows, filter None/Sub/Up alternating, raw deflate."""
    channels = 4 if alpha else 3
    rows = bytearray()
    passes = [(0, 0, 1, 1)] if not interlaced else [
        (0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
    for (x0, y0, dx, dy) in passes:
        xs = range(x0, width, dx)
        ys = range(y0, height, dy)
        if not xs or not ys:
            continue
        previous = None
        for y in ys:
            line = bytearray()
            for x in xs:
                a = (x * 37 + y * 11) % 256 if alpha else 255
                r, g, b = (x * 16) % 256, (y * 16) % 256, ((x + y) * 8) % 256
                pr, pg, pb = (r * a + 127) // 255, (g * a + 127) // 255, (b * a + 127) // 255
                line += bytes([pb, pg, pr, a] if alpha else [pb, pg, pr])
            kind = y % 3
            if kind == 1:  # Sub
                filtered = bytearray(line)
                for i in range(channels, len(line)):
                    filtered[i] = (line[i] - line[i - channels]) % 256
            elif kind == 2 and previous is not None:  # Up
                filtered = bytearray((line[i] - previous[i]) % 256 for i in range(len(line)))
            else:
                kind, filtered = 0, line
            rows += bytes([kind]) + filtered
            previous = line
    if zlib_wrapped:
        data = zlib.compress(bytes(rows), 9)
    else:
        compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
        data = compressor.compress(bytes(rows)) + compressor.flush()
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"CgBI", struct.pack(">I", 0x50002002))
    out += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6 if alpha else 2, 0, 0, 1 if interlaced else 0))
    if idot:
        out += chunk(b"iDOT", struct.pack(">IIIIIII", 2, 0, (height + 1) // 2, 0, height // 2, 40, 0))
    half = len(data) // 2
    out += chunk(b"IDAT", data[:half]) + chunk(b"IDAT", data[half:]) + chunk(b"IEND", b"")
    return out


def png_seeds():
    folder = reset("fuzz-png")
    copy_tree(folder, "png/standard", "standard-", 8192, (".png",))
    copy_tree(folder, "png/hostile", "hostile-", 8192)
    write(folder, "cgbi-rgba-16x16.png", cgbi_png(16, 16))
    write(folder, "cgbi-rgb-9x7.png", cgbi_png(9, 7, alpha=False))
    write(folder, "cgbi-rgba-13x11-adam7.png", cgbi_png(13, 11, interlaced=True))
    write(folder, "cgbi-rgba-20x20-idot.png", cgbi_png(20, 20, idot=True))
    write(folder, "cgbi-rgba-8x8-zlib.png", cgbi_png(8, 8, zlib_wrapped=True))


# MARK: Zip archives


class Unseekable(io.RawIOBase):
    """Makes zipfile write data descriptors (flag bit 3), as streaming zip writers do."""

    def __init__(self):
        self.buffer = bytearray()

    def writable(self):
        return True

    def write(self, data):
        self.buffer += data
        return len(data)


def info(name, mode=0o100644, method=zipfile.ZIP_DEFLATED):
    entry = zipfile.ZipInfo(name, DATE)
    entry.create_system = 3
    entry.external_attr = mode << 16
    entry.compress_type = method
    return entry


def make_zip(entries, comment=b"", stream=False, zip64=False):
    """entries: (name, data or None for a folder, mode, method)."""
    target = Unseekable() if stream else io.BytesIO()
    with zipfile.ZipFile(target, "w") as archive:
        for name, data, mode, method in entries:
            if data is None:
                entry = info(name, 0o40755, zipfile.ZIP_STORED)
                entry.external_attr |= 0x10
                archive.writestr(entry, b"")
            elif zip64:
                with archive.open(info(name, mode, method), "w", force_zip64=True) as handle:
                    handle.write(data)
            else:
                archive.writestr(info(name, mode, method), data)
        archive.comment = comment
    return bytes(target.buffer if stream else target.getvalue())


def app_entries(app="Payload/A.app/", plist=None, extra=()):
    plist = plist if plist is not None else b'<?xml version="1.0"?><plist version="1.0"><dict><key>CFBundleIdentifier</key><string>com.example.a</string></dict></plist>'
    return [("Payload/", None, 0, 0), (app, None, 0, 0), (app + "Info.plist", plist, 0o100644, zipfile.ZIP_DEFLATED)] + list(extra)


def patch(data, offset, value):
    return data[:offset] + value + data[offset + len(value):]


def zip_seeds():
    folder = reset("fuzz-zip")
    stored, deflated, bzip2, lzma = zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA
    info_plist = XCODE_INFO
    icon = cgbi_png(12, 12)
    realistic = app_entries("Payload/Sample.app/", info_plist, [
        ("Payload/Sample.app/PkgInfo", b"APPL????", 0o100644, stored),
        ("Payload/Sample.app/AppIcon60x60@2x.png", icon, 0o100644, stored),
        ("Payload/Sample.app/Sample", fixture("macho/hostile/MACHO_SECTION--cstring-offset-past-slice.macho"), 0o100755, deflated),
        ("Payload/Sample.app/Frameworks/", None, 0, 0),
        ("Payload/Sample.app/Frameworks/K.framework/", None, 0, 0),
        ("Payload/Sample.app/Frameworks/K.framework/Versions/A/K", b"\xcf\xfa\xed\xfe" + bytes(60), 0o100755, deflated),
        ("Payload/Sample.app/Frameworks/K.framework/Versions/Current", b"A", 0o120755, stored),
        ("Payload/Sample.app/_CodeSignature/CodeResources", b"<plist version=\"1.0\"><dict/></plist>", 0o100644, deflated),
        ("SwiftSupport/", None, 0, 0),
        ("iTunesMetadata.plist", b"<plist version=\"1.0\"><dict/></plist>", 0o100644, deflated),
    ])
    write(folder, "realistic.ipa", make_zip(realistic, comment=b"made by Fuzz/make-seeds.py"))
    write(folder, "minimal.ipa", make_zip(app_entries()))
    write(folder, "data-descriptors.ipa", make_zip(app_entries(extra=[("Payload/A.app/x", b"x" * 300, 0o100644, deflated)]), stream=True))
    write(folder, "zip64.ipa", make_zip(app_entries(extra=[("Payload/A.app/big", b"y" * 200, 0o100644, deflated)]), zip64=True))
    write(folder, "bzip2.ipa", make_zip(app_entries(extra=[("Payload/A.app/b", b"bz" * 200, 0o100644, bzip2)])))
    write(folder, "lzma-unsupported.ipa", make_zip(app_entries(extra=[("Payload/A.app/l", b"lz" * 100, 0o100644, lzma)])))
    write(folder, "empty.zip", make_zip([]))
    copy_tree(folder, "hostile", "corpus-", 8192, suffixes=(".ipa",))
    write(folder, "no-payload.zip", make_zip([("readme.txt", b"hello", 0o100644, deflated)]))
    write(folder, "two-apps.ipa", make_zip(app_entries() + [("Payload/B.app/", None, 0, 0)]))
    write(folder, "symlink-escape.ipa", make_zip(app_entries(extra=[("Payload/A.app/link", b"../../etc/passwd", 0o120777, stored)])))
    write(folder, "symlink-loop.ipa", make_zip(app_entries(extra=[
        ("Payload/A.app/a", b"b", 0o120777, stored), ("Payload/A.app/b", b"a", 0o120777, stored)])))
    write(folder, "symlink-chain.ipa", make_zip(app_entries(extra=[
        ("Payload/A.app/d/", None, 0, 0), ("Payload/A.app/d/up", b"..", 0o120777, stored),
        ("Payload/A.app/link", b"d/up/Info.plist", 0o120777, stored)])))
    write(folder, "zip-slip.ipa", make_zip(app_entries(extra=[("Payload/A.app/../../evil", b"x", 0o100644, stored)])))
    write(folder, "duplicate-nfd.ipa", make_zip(app_entries(extra=[
        ("Payload/A.app/caf\u00e9", b"1", 0o100644, stored), ("Payload/A.app/cafe\u0301", b"2", 0o100644, stored)])))
    write(folder, "file-then-child.ipa", make_zip(app_entries(extra=[
        ("Payload/A.app/f", b"1", 0o100644, stored), ("Payload/A.app/f/g", b"2", 0o100644, stored)])))

    # Header-level damage, patched into a valid archive.
    base = make_zip(app_entries(extra=[("Payload/A.app/s", b"stored content", 0o100644, stored)]))
    directory = base.rindex(b"PK\x01\x02")  # the last central record: the stored entry
    local = struct.unpack_from("<I", base, directory + 42)[0]
    write(folder, "encrypted-flag.ipa", patch(patch(base, directory + 8, b"\x01\x00"), local + 6, b"\x01\x00"))
    write(folder, "lzfse-method.ipa", patch(patch(base, directory + 10, b"\x63\x00"), local + 8, b"\x63\x00"))
    write(folder, "bad-crc.ipa", patch(patch(base, directory + 16, b"\xde\xad\xbe\xef"), local + 14, b"\xde\xad\xbe\xef"))
    write(folder, "size-mismatch.ipa", patch(base, directory + 24, struct.pack("<I", 99)))
    write(folder, "local-name-differs.ipa", patch(base, local + 30 + len("Payload/A.app/"), b"t"))
    end = base.rindex(b"PK\x05\x06")
    write(folder, "entry-count-lies.ipa", patch(base, end + 8, struct.pack("<HH", 9, 9)))
    write(folder, "directory-offset-lies.ipa", patch(base, end + 16, struct.pack("<I", 1)))
    write(folder, "truncated.ipa", base[: len(base) // 2])
    write(folder, "prefixed.ipa", b"#!/bin/sh\nexit 0\n" + base)
    write(folder, "trailing-bytes.ipa", base + b"\0" * 16)
    # The hostile corpus's archives that fit the default -max_len.
    copy_tree(folder, "hostile", "corpus-", 8192, suffixes=(".ipa",))


# MARK: Bundles (IPAs for the whole inspect path)


def bundle_seeds():
    folder = reset("fuzz-bundle")
    stored, deflated = zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED

    def plist(extra):
        body = "".join(f"<key>{k}</key>{v}" for k, v in extra)
        return (f'<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>'
                f'<key>CFBundleIdentifier</key><string>com.example.app</string>'
                f'<key>CFBundleExecutable</key><string>App</string>{body}</dict></plist>').encode()

    executable = fixture("macho/hostile/MACHO_SECTION--cstring-offset-past-slice.macho")
    icons = '<key>CFBundleIcons</key><dict><key>CFBundlePrimaryIcon</key><dict><key>CFBundleIconFiles</key><array><string>AppIcon60x60</string></array></dict></dict>'
    catalog = '<key>CFBundleIcons</key><dict><key>CFBundlePrimaryIcon</key><dict><key>CFBundleIconName</key><string>AppIcon</string></dict></dict>'
    app = "Payload/App.app/"

    def ipa(name, plist_bytes, extra):
        entries = app_entries(app, plist_bytes, [(app + "App", executable, 0o100755, deflated)] + extra)
        write(folder, name, make_zip(entries))

    ipa("cgbi-icon-files.ipa", plist([("CFBundleIcons", icons[len("<key>CFBundleIcons</key>"):])]), [
        (app + "AppIcon60x60@2x.png", cgbi_png(12, 12), 0o100644, stored),
        (app + "AppIcon60x60@3x.png", cgbi_png(18, 18, interlaced=True), 0o100644, deflated)])
    ipa("standard-icon-file.ipa", plist([("CFBundleIconFile", "<string>Icon.png</string>")]), [
        (app + "Icon.png", fixture("png/standard/type6-8bit.png"), 0o100644, stored)])
    ipa("asset-catalog-icon.ipa", plist([("CFBundleIcons", catalog[len("<key>CFBundleIcons</key>"):])]), [
        (app + "Assets.car", fixture("assets/hostile/CAR_LINK_INVALID.missing-target.car"), 0o100644, deflated)])
    ipa("fallback-icon.ipa", plist([]), [(app + "Icon@2x.png", cgbi_png(8, 8, alpha=False), 0o100644, stored)])
    ipa("binary-plist-nested.ipa", XCODE_INFO, [
        (app + "PlugIns/", None, 0, 0), (app + "PlugIns/W.appex/", None, 0, 0),
        (app + "PlugIns/W.appex/Info.plist", plist([("CFBundlePackageType", "<string>XPC!</string>")]), 0o100644, deflated),
        (app + "PlugIns/W.appex/App", executable, 0o100755, stored),
        (app + "Frameworks/", None, 0, 0), (app + "Frameworks/F.framework/", None, 0, 0),
        (app + "Frameworks/F.framework/Info.plist", plist([]), 0o100644, deflated),
        (app + "XcodeShaped", b"\xca\xfe\xba\xbe\0\0\0\0", 0o100755, stored)])
    ipa("missing-icon.ipa", plist([("CFBundleIcons", icons[len("<key>CFBundleIcons</key>"):])]), [])
    copy_tree(folder, "hostile", "corpus-", 8192, suffixes=(".ipa",))


# MARK: Copies of fixtures


def fixture_seeds():
    folder = reset("fuzz-macho")
    copy_tree(folder, "macho/hostile", "hostile-", 65536)
    # Files a signature can be planned for, and files planning refuses (the harness plans both).
    copy_tree(folder, "macho/signable", "signable-", 65536)
    copy_tree(folder, "macho/unsignable", "unsignable-", 65536)

    folder = reset("fuzz-lzfse")
    copy_tree(folder, "lzfse", "", 8192, (".lzfse", ".lzvn"))
    copy_tree(folder, "lzfse/corrupt", "corrupt-", 8192)

    folder = reset("fuzz-assets")
    copy_tree(folder, "assets/hostile", "hostile-", 65536)

    folder = reset("fuzz-profile")
    copy_tree(folder, "profiles/generated", "", 65536)

    folder = reset("fuzz-cms")
    copy_tree(folder, "cms", "", 65536, (".cms",))
    copy_tree(folder, "signing/profiles", "profile-", 65536)
    shutil.copyfile(os.path.join(FIXTURES, "profiles/generated/ber-indefinite.mobileprovision"),
                    os.path.join(folder, "profile-ber-indefinite.mobileprovision"))

    folder = reset("fuzz-policy")
    copy_tree(folder, "policy/valid", "valid-", 65536)
    copy_tree(folder, "policy/invalid", "invalid-", 65536)
    for name in ("general.xml", "premium.xml"):
        shutil.copyfile(os.path.join(ROOT, "Templates/policies", name), os.path.join(folder, "template-" + name))


# MARK: Code signatures


def be32(value):
    return struct.pack(">I", value & 0xFFFFFFFF)


def blob(magic, payload):
    return be32(magic) + be32(8 + len(payload)) + payload


def super_blob(magic, entries):
    """A SuperBlob: header, index, blobs back to back in index order (as codesign writes)."""
    offset = 12 + 8 * len(entries)
    index, body = b"", b""
    for kind, data in entries:
        index += be32(kind) + be32(offset)
        body += data
        offset += len(data)
    return be32(magic) + be32(offset) + be32(len(entries)) + index + body


def code_directory(identifier, team, hash_name, code, special, version=0x20400, exec_flags=1):
    """A CodeDirectory laid out as Apple's builder does (header, identifier, team, slots)."""
    size = {"sha1": 20, "sha256": 32}[hash_name]
    kind = {"sha1": 1, "sha256": 2}[hash_name]
    header = {0x20400: 88, 0x20500: 96}[version]
    pages = [hashlib.new(hash_name, code[i:i + 4096]).digest() for i in range(0, len(code), 4096)]
    ident = identifier.encode() + b"\0"
    team_bytes = team.encode() + b"\0"
    hash_offset = header + len(ident) + len(team_bytes) + len(special) * size
    length = hash_offset + len(pages) * size
    out = be32(0xFADE0C02) + be32(length) + be32(version) + be32(0) + be32(hash_offset) + be32(header)
    out += be32(len(special)) + be32(len(pages)) + be32(len(code)) + bytes([size, kind, 0, 12]) + be32(0)
    out += be32(0) + be32(header + len(ident)) + be32(0) + struct.pack(">Q", 0)
    out += struct.pack(">QQQ", 0, 4096, exec_flags)
    if version >= 0x20500:
        out += be32(0x000E0000) + be32(0)
    out += ident + team_bytes
    for slot in reversed(special):
        out += slot[:size].ljust(size, b"\0")
    return out + b"".join(pages)


def data_field(value):
    return be32(len(value)) + value + b"\0" * (-len(value) % 4)


def designated_requirement(identifier, common_name):
    """identifier and anchor apple generic and leaf[subject.CN] = name and 1[field.WWDR] exists."""
    wwdr = bytes([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x63, 0x64, 0x06, 0x02, 0x01])
    expression = be32(1) + be32(6) + be32(2) + data_field(identifier.encode()) + be32(6) + be32(15) + be32(6)
    expression += be32(11) + be32(0) + data_field(b"subject.CN") + be32(1) + data_field(common_name.encode())
    expression += be32(14) + be32(1) + data_field(wwdr) + be32(0)
    return super_blob(0xFADE0C01, [(3, blob(0xFADE0C00, expression))])


def der(tag, content):
    if len(content) < 0x80:
        return bytes([tag, len(content)]) + content
    length = len(content).to_bytes((len(content).bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(length)]) + length + content


def der_entitlements(entries):
    """[APPLICATION 16] { 1, [CONTEXT 16] { {key, value}… } } with keys sorted by bytes."""
    pairs = b"".join(der(0x30, der(0x0C, key.encode()) + value) for key, value in sorted(entries, key=lambda e: e[0].encode()))
    return der(0x70, b"\x02\x01\x01" + der(0xB0, pairs))


def code_resources():
    """A _CodeSignature/CodeResources as codesign writes it: files (SHA-1), files2 (SHA-1 and
    SHA-256, optional lproj files), Apple's iOS rules and rules2."""
    contents = {"Assets.car": b"catalog", "Base.lproj/Main.storyboardc/Info.plist": b"<plist/>",
                "fr.lproj/Localizable.strings": b'"a" = "b";', "Frameworks/libswiftCore.dylib": b"\xca\xfe\xba\xbe"}
    files = {"Info.plist": hashlib.sha1(b"info").digest(), "PkgInfo": hashlib.sha1(b"APPL????").digest()}
    files2 = {}
    for path, data in contents.items():
        optional = path.startswith("fr.lproj/")
        sha1 = hashlib.sha1(data).digest()
        files[path] = {"hash": sha1, "optional": True} if optional else sha1
        files2[path] = {"hash": sha1, "hash2": hashlib.sha256(data).digest()}
        if optional:
            files2[path]["optional"] = True
    rules = {"^.*": True, "^.*\\.lproj/": {"optional": True, "weight": 1000.0},
             "^.*\\.lproj/locversion.plist$": {"omit": True, "weight": 1100.0},
             "^Base\\.lproj/": {"weight": 1010.0}, "^version.plist$": True}
    rules2 = {".*\\.dSYM($|/)": {"weight": 11.0}, "^(.*/)?\\.DS_Store$": {"omit": True, "weight": 2000.0},
              "^.*": True, "^.*\\.lproj/": {"optional": True, "weight": 1000.0},
              "^.*\\.lproj/locversion.plist$": {"omit": True, "weight": 1100.0},
              "^Base\\.lproj/": {"weight": 1010.0}, "^Info\\.plist$": {"omit": True, "weight": 20.0},
              "^PkgInfo$": {"omit": True, "weight": 20.0}, "^embedded\\.provisionprofile$": {"weight": 20.0},
              "^version\\.plist$": {"weight": 20.0}}
    return plistlib.dumps({"files": files, "files2": files2, "rules": rules, "rules2": rules2}, sort_keys=True)


def macho_signatures(data):
    """The SuperBlob bytes of every slice of a thin or fat Mach-O (what LC_CODE_SIGNATURE covers)."""
    slices = [(0, len(data))]
    if data[:4] in (b"\xca\xfe\xba\xbe", b"\xca\xfe\xba\xbf"):
        count = struct.unpack(">I", data[4:8])[0]
        wide = data[:4] == b"\xca\xfe\xba\xbf"
        slices = []
        for index in range(min(count, 8)):
            if wide:
                _, _, offset, size, _, _ = struct.unpack(">iiQQII", data[8 + 32 * index:40 + 32 * index])
            else:
                _, _, offset, size, _ = struct.unpack(">iiIII", data[8 + 20 * index:28 + 20 * index])
            slices.append((offset, size))
    found = []
    for offset, size in slices:
        body = data[offset:offset + size]
        if len(body) < 32 or body[:4] not in (b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe"):
            continue
        ncmds = struct.unpack("<I", body[16:20])[0]
        at = 32 if body[:4] == b"\xcf\xfa\xed\xfe" else 28
        for _ in range(min(ncmds, 256)):
            if at + 16 > len(body):
                break
            cmd, cmdsize = struct.unpack("<II", body[at:at + 8])
            if cmd == 0x1D:
                dataoff, datasize = struct.unpack("<II", body[at + 8:at + 16])
                found.append(body[dataoff:dataoff + min(datasize, 65536)])
            if cmdsize < 8:
                break
            at += cmdsize
    return found


def signature_seeds():
    folder = reset("fuzz-signature")
    seen = set()

    def add(name, data):
        if data and data not in seen:
            seen.add(data)
            write(folder, name, data)

    # The signatures of the signable Mach-O files (MachOBuilder's codesign layout), whole and blob
    # by blob.
    directory = os.path.join(FIXTURES, "macho/signable")
    for name in sorted(os.listdir(directory)):
        for number, signature in enumerate(macho_signatures(fixture("macho/signable/" + name))):
            stem = "signable-%s-%d" % (name.split(".")[0], number)
            length = struct.unpack(">I", signature[4:8])[0]
            add(stem + ".superblob", signature[:length])
            count = struct.unpack(">I", signature[8:12])[0]
            for index in range(count):
                kind, offset = struct.unpack(">II", signature[12 + 8 * index:20 + 8 * index])
                size = struct.unpack(">I", signature[offset + 4:offset + 8])[0]
                add("%s-slot-%x.blob" % (stem, kind), signature[offset:offset + size])
    add("xcode.coderesources", code_resources())

    # The hostile Mach-O corpus's signatures, damaged as the cases say.
    directory = os.path.join(FIXTURES, "macho/hostile")
    for name in sorted(os.listdir(directory)):
        if name.startswith("MACHO_SIGNATURE"):
            for number, signature in enumerate(macho_signatures(fixture("macho/hostile/" + name))):
                add("hostile-%s-%d.superblob" % (name[:-6], number), signature)

    # A current-style signature: SHA-1 and SHA-256 directories (0x20400, exec segment), the
    # designated requirement, XML and DER entitlements, an empty CMS wrapper.
    code = bytes((i * 7 + (i >> 8)) & 0xFF for i in range(9000))
    xml = b'<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0">\n<dict>\n\t<key>get-task-allow</key>\n\t<true/>\n</dict>\n</plist>\n'
    entitlements = blob(0xFADE7171, xml)
    der_blob = blob(0xFADE7172, der_entitlements([
        ("application-identifier", der(0x0C, b"ABCDE12345.com.example.app")),
        ("get-task-allow", b"\x01\x01\xff"),
        ("keychain-access-groups", der(0x30, der(0x0C, b"ABCDE12345.*"))),
        ("com.example.number", b"\x02\x02\x01\x2c"),
    ]))
    requirements = designated_requirement("com.example.app", "iPhone Developer: Test (ABCDE12345)")
    entries = []
    for hash_name, slot in (("sha1", 0), ("sha256", 0x1000)):
        special = [hashlib.new(hash_name, x).digest() for x in (b"<plist/>", requirements, b"", b"", entitlements, b"", der_blob)]
        special[2] = special[3] = special[5] = b""
        entries.append((slot, code_directory("com.example.app", "ABCDE12345", hash_name, code, special)))
    entries += [(2, requirements), (5, entitlements), (7, der_blob), (0x10000, blob(0xFADE0B01, b""))]
    entries.sort(key=lambda entry: entry[0])
    signature = super_blob(0xFADE0CC0, entries)
    add("current.superblob", signature)
    for kind, data in entries:
        add("current-slot-%x.blob" % kind, data)
    add("current-entitlements.der", der_blob[8:])
    add("runtime.cd", code_directory("com.example.tool", "ABCDE12345", "sha256", code[:5000], [b"x" * 32], version=0x20500))


# MARK: PKCS #12


def tlvs(data):
    """The top-level DER elements of `data` (definite lengths), each whole."""
    elements, i = [], 0
    while i < len(data):
        first = data[i + 1]
        header, length = 2, first
        if first & 0x80:
            count = first & 0x7F
            header, length = 2 + count, int.from_bytes(data[i + 2:i + 2 + count], "big")
        elements.append(data[i:i + header + length])
        i += header + length
    return elements


def content(element):
    """An element's content (definite length)."""
    first = element[1]
    return element[2 + (first & 0x7F if first & 0x80 else 0):]


def der_integer(value):
    return der(0x02, value.to_bytes((value.bit_length() + 8) // 8, "big"))


def with_mac_iterations(p12, iterations):
    """`p12` with its MacData's iteration count replaced (the MAC left as it was)."""
    version, auth, mac = tlvs(content(p12))
    digest, salt = tlvs(content(mac))[:2]
    return der(0x30, version + auth + der(0x30, digest + salt + der_integer(iterations)))


def pem_der(pem):
    import base64
    return base64.b64decode(b"".join(line for line in pem.splitlines() if line and not line.startswith(b"-----")))


def plain_pfx(key, certificates):
    """A PKCS #12 file with no MAC and no encryption (openssl pkcs12 -export -nomac -keypbe NONE
    -certpbe NONE): a keyBag and certBags, each in a data ContentInfo."""
    oid = lambda hex_text: der(0x06, bytes.fromhex(hex_text))
    data = oid("2a864886f70d010701")
    bag = lambda kind, value: der(0x30, oid(kind) + der(0xA0, value))
    cert_bags = b"".join(bag("2a864886f70d010c0a0103", der(0x30, oid("2a864886f70d01091601") + der(0xA0, der(0x04, c))))
                         for c in certificates)
    key_bags = bag("2a864886f70d010c0a0101", key)
    infos = b"".join(der(0x30, data + der(0xA0, der(0x04, der(0x30, bags)))) for bags in (cert_bags, key_bags))
    return der(0x30, der_integer(3) + der(0x30, data + der(0xA0, der(0x04, der(0x30, infos)))))


def pkcs12_seeds():
    folder = reset("fuzz-pkcs12")
    # The identities of Tests/Fixtures/signing (made by its make-identities.sh): Keychain
    # Access's and openssl's forms, RSA and EC; the harness opens them with their password.
    copy_tree(folder, "signing", "", 65536, (".p12",))
    # Read with an empty password: no MAC stops a mutation before the bags.
    certificates = [fixture("signing/%s.cer" % name) for name in ("distribution", "wwdr", "root")]
    write(folder, "plain-nomac.p12", plain_pfx(pem_der(fixture("signing/distribution.key.pem")), certificates))
    write(folder, "plain-nomac-ec.p12", plain_pfx(pem_der(fixture("signing/distribution-ec.key.pem")),
                                                  [fixture("signing/distribution-ec.cer")]))
    # Hostile: a MAC asking for 2^31 - 1 iterations, or for none at all.
    for name in ("distribution-openssl", "distribution-keychain"):
        p12 = fixture("signing/%s.p12" % name)
        write(folder, "hostile-mac-2147483647-%s.p12" % name, with_mac_iterations(p12, 0x7FFFFFFF))
        write(folder, "hostile-mac-0-%s.p12" % name, with_mac_iterations(p12, 0))


# Each harness also replays what it (or another fuzzer of the format) once failed on.
REGRESSIONS = {
    "fuzz-zip": "archive/fuzz-regressions",
    "fuzz-png": "png/fuzz-regressions",
    "fuzz-macho": "macho/fuzz-regressions",
    "fuzz-lzfse": "lzfse/fuzz-regressions",
    "fuzz-assets": "assets/fuzz-regressions",
    "fuzz-profile": "profiles/fuzz-regressions",
    "fuzz-signature": "signature/fuzz-regressions",
    "fuzz-policy": "policy/fuzz-regressions",
    "fuzz-bundle": "bundle/fuzz-regressions",
    "fuzz-pkcs12": "signing/fuzz-regressions",
}


def regression_seeds():
    for target, source in sorted(REGRESSIONS.items()):
        if os.path.isdir(os.path.join(FIXTURES, source)):
            copy_tree(os.path.join(SEEDS, target), source, "regression-", 1 << 20)


def splice_seeds():
    """fuzz-splice: text-like contents (odd first byte: deflated by the harness) and raw deflate
    streams of the harness's own text behind a 3-byte size (even first byte)."""
    folder = reset("fuzz-splice")

    def letters(count, state=12345):
        out = bytearray()
        for _ in range(count):
            state = (state * 1103515245 + 12345) & 0xFFFFFFFF
            out.append(ord("a") + (state >> 16) % 16)
        return bytes(out)

    write(folder, "text", b"\x01" + letters(40_000, 7))
    write(folder, "short", b"\x03" + letters(3_000, 9))
    for level in (1, 6, 9):
        content = letters(200_000)
        compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
        stream = compressor.compress(content) + compressor.flush()
        size = len(content) - 1
        write(folder, "raw-%d" % level, b"\x02" + bytes([size >> 16, (size >> 8) & 0xFF, size & 0xFF]) + stream)

if __name__ == "__main__":
    png_seeds()
    zip_seeds()
    bundle_seeds()
    fixture_seeds()
    signature_seeds()
    pkcs12_seeds()
    regression_seeds()
    splice_seeds()
