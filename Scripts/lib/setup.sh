# Shared by Scripts/run-sample and Scripts/test: make sure the system packages ipawrap builds
# against (and the tests' independent oracles) are installed, then cd to the package root.
# Usage: source Scripts/lib/setup.sh; ensure_packages PACKAGE...

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

ensure_packages() {
    local missing=()
    local package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "ipawrap: installing missing system packages: ${missing[*]}" >&2
    local runner=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
            runner=(sudo)
        else
            echo "ipawrap: these packages are missing: ${missing[*]}" >&2
            echo "ipawrap: install them as root (apt-get install ${missing[*]}) or run this script with sudo rights." >&2
            exit 1
        fi
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "ipawrap: apt-get is not available; install ${missing[*]} (or your system's equivalents) yourself." >&2
        exit 1
    fi
    "${runner[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    "${runner[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

ensure_swift() {
    if ! command -v swift >/dev/null 2>&1; then
        for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
            [ -x "$candidate/swift" ] && export PATH="$candidate:$PATH" && return 0
        done
        echo "ipawrap: the Swift toolchain (6.2 or later) is not on PATH; see https://www.swift.org/install/linux/" >&2
        exit 1
    fi
}

# What building ipawrap needs.
BUILD_PACKAGES=(pkg-config libzip-dev libxml2-dev zlib1g-dev)
# What the tests use as independent oracles (g++, make and libssl-dev build zsign, the
# re-signer the code-signature tests compare with, when its source is on the machine).
TEST_PACKAGES=(python3 unzip zip openssl libxml2-utils g++ make libssl-dev)
