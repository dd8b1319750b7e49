import Foundation

/// Hostile PKCS #12 files (and PKCS #8 encrypted PEM keys), made at test time from a real one:
/// the iteration counts of its MAC, its encrypted contents or its private key's encryption
/// rewritten (2^31 − 1 is minutes of key derivation), the DER lengths around them fixed, and the
/// MAC recomputed (RFC 7292, appendix B) so that the file still opens with its password. Written
/// in Python (hashlib, hmac), independently of the code under test. `roundTripsExactly` proves
/// the rewriter: a file rewritten without changes, its MAC recomputed, is the original byte for byte.
public enum HostilePKCS12 {
    public struct Rewrite: Sendable {
        /// Every EncryptedData ContentInfo's (the certificates') iteration count.
        public var encryptedIterations: Int64?
        /// Every PKCS #8 shrouded key bag's (or a PEM key's) iteration count.
        public var keyIterations: Int64?
        /// The MacData's iteration count.
        public var macIterations: Int64?
        /// Recompute the MAC with the (new) MAC iteration count; false leaves the old MAC, for a
        /// count no MAC can be computed with in a test's time.
        public var recomputesMAC = true
        /// Copies of the EncryptedData ContentInfo appended to the AuthenticatedSafe (a file of
        /// many encrypted parts).
        public var extraEncryptedParts = 0

        public init(
            encryptedIterations: Int64? = nil, keyIterations: Int64? = nil, macIterations: Int64? = nil, recomputesMAC: Bool = true,
            extraEncryptedParts: Int = 0
        ) {
            self.encryptedIterations = encryptedIterations
            self.keyIterations = keyIterations
            self.macIterations = macIterations
            self.recomputesMAC = recomputesMAC
            self.extraEncryptedParts = extraEncryptedParts
        }
    }

    /// Writes `source` (a .p12, or a PEM `ENCRYPTED PRIVATE KEY`) rewritten to `output`.
    public static func write(from source: String, to output: String, password: String, _ rewrite: Rewrite) throws {
        func option(_ value: Int64?) -> String { value.map(String.init) ?? "-" }
        let result = try Command.run("python3", [
            "-c", script, source, output, password, option(rewrite.encryptedIterations), option(rewrite.keyIterations),
            option(rewrite.macIterations), rewrite.recomputesMAC ? "mac" : "keep", String(rewrite.extraEncryptedParts),
        ])
        guard result.status == 0 else { throw HostilePKCS12Error(message: "the PKCS #12 rewriter failed: \(result.stderr)") }
    }

    static let script = #"""
        import base64, hashlib, hmac, sys

        source, output, password, encrypted, key, mac, recompute, copies = sys.argv[1:9]
        number = lambda text: None if text == "-" else int(text)
        encrypted, key, mac = number(encrypted), number(key), number(mac)

        def parse(data):
            nodes, i = [], 0
            while i < len(data):
                tag, first = data[i], data[i + 1]
                i += 2
                if first < 0x80:
                    length = first
                elif first == 0x80:
                    raise ValueError("indefinite length")
                else:
                    count = first & 0x7F
                    length = int.from_bytes(data[i:i + count], "big")
                    i += count
                content = data[i:i + length]
                if len(content) != length:
                    raise ValueError("truncated")
                i += length
                node = {"tag": tag}
                if tag & 0x20:
                    node["children"] = parse(content)
                else:
                    node["value"] = content
                    # An OCTET STRING holding DER (the AuthenticatedSafe, SafeContents): opened
                    # only when it encodes back to exactly its bytes.
                    if tag == 0x04 and content[:1] == b"\x30":
                        try:
                            inner = parse(content)
                            if encode_all(inner) == content:
                                node["wrapped"] = inner
                        except (ValueError, IndexError):
                            pass
                nodes.append(node)
            return nodes

        def encode_length(length):
            if length < 0x80:
                return bytes([length])
            raw = length.to_bytes((length.bit_length() + 7) // 8, "big")
            return bytes([0x80 | len(raw)]) + raw

        def encode(node):
            if "children" in node:
                content = encode_all(node["children"])
            elif "wrapped" in node:
                content = encode_all(node["wrapped"])
            else:
                content = node["value"]
            return bytes([node["tag"]]) + encode_length(len(content)) + content

        def encode_all(nodes):
            return b"".join(encode(node) for node in nodes)

        def integer(value):
            return {"tag": 0x02, "value": value.to_bytes((value.bit_length() + 8) // 8, "big")}

        PBES2 = bytes.fromhex("2a864886f70d01050d")
        PKCS12_PBE = bytes.fromhex("2a864886f70d010c01")
        DATA = bytes.fromhex("2a864886f70d010701")
        ENCRYPTED = bytes.fromhex("2a864886f70d010706")
        SHROUDED = bytes.fromhex("2a864886f70d010c0a0102")
        HASHES = {bytes.fromhex("2b0e03021a"): "sha1", bytes.fromhex("608648016503040201"): "sha256",
                  bytes.fromhex("608648016503040202"): "sha384", bytes.fromhex("608648016503040203"): "sha512"}

        def set_iterations(algorithm, count):
            oid = algorithm["children"][0]["value"]
            if oid == PBES2:
                algorithm["children"][1]["children"][0]["children"][1]["children"][1] = integer(count)
            elif oid.startswith(PKCS12_PBE):
                algorithm["children"][1]["children"][1] = integer(count)
            else:
                raise ValueError("not a PBE algorithm: " + oid.hex())

        def kdf(secret, salt, ident, iterations, size, name):
            # RFC 7292, appendix B.2.
            digest = hashlib.new(name)
            u, v = digest.digest_size, digest.block_size
            def fill(data):
                # `data` repeated to a whole number of v-byte blocks.
                if not data:
                    return b""
                length = v * ((len(data) + v - 1) // v)
                return (data * (length // len(data) + 1))[:length]
            block = fill(salt) + fill(secret)
            out = b""
            while len(out) < size:
                a = hashlib.new(name, bytes([ident]) * v + block).digest()
                for _ in range(iterations - 1):
                    a = hashlib.new(name, a).digest()
                out += a
                b = int.from_bytes((a * (v // u + 1))[:v], "big")
                block = b"".join(((int.from_bytes(block[j:j + v], "big") + b + 1) % (1 << (8 * v))).to_bytes(v, "big")
                                 for j in range(0, len(block), v))
            return out[:size]

        data = open(source, "rb").read()
        if data.startswith(b"-----BEGIN ENCRYPTED PRIVATE KEY-----"):
            body = b"".join(line for line in data.splitlines() if line and not line.startswith(b"-----"))
            root = parse(base64.b64decode(body))[0]
            set_iterations(root["children"][0], key)
            encoded = base64.b64encode(encode(root))
            lines = [encoded[i:i + 64] for i in range(0, len(encoded), 64)]
            open(output, "wb").write(b"-----BEGIN ENCRYPTED PRIVATE KEY-----\n" + b"\n".join(lines) + b"\n-----END ENCRYPTED PRIVATE KEY-----\n")
            sys.exit(0)

        root = parse(data)[0]
        version, auth, mac_data = root["children"]
        safe = auth["children"][1]["children"][0]
        infos = safe["wrapped"][0]["children"]
        parts = [info for info in infos if info["children"][0]["value"] == ENCRYPTED]
        infos.extend(parts[:1] * int(copies))
        for info in infos:
            oid = info["children"][0]["value"]
            content = info["children"][1]["children"][0]
            if oid == ENCRYPTED and encrypted is not None:
                set_iterations(content["children"][1]["children"][1], encrypted)
            elif oid == DATA and key is not None:
                for bag in content["wrapped"][0]["children"]:
                    if bag["children"][0]["value"] == SHROUDED:
                        set_iterations(bag["children"][1]["children"][0]["children"][0], key)
        digest_info, salt = mac_data["children"][0], mac_data["children"][1]["value"]
        if mac is not None:
            if len(mac_data["children"]) > 2:
                mac_data["children"][2] = integer(mac)
            else:
                mac_data["children"].append(integer(mac))
        if recompute == "mac":
            name = HASHES[digest_info["children"][0]["children"][0]["value"]]
            count = int.from_bytes(mac_data["children"][2]["value"], "big") if len(mac_data["children"]) > 2 else 1
            secret = (password + "\0").encode("utf-16-be")
            size = hashlib.new(name).digest_size
            mac_key = kdf(secret, salt, 3, count, size, name)
            digest_info["children"][1]["value"] = hmac.new(mac_key, encode_all(safe["wrapped"]), name).digest()
        open(output, "wb").write(encode(root))
        """#
}

public struct HostilePKCS12Error: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
