#!/bin/sh
# Regenerates the test signing identity and the developer certificates that the generated
# profiles embed. The outputs are committed; run this only to change them (every profile
# fixture must then be rewritten: see README.md). Needs openssl 3.
set -eu
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Self-signed stand-in for Apple's "iPhone OS Provisioning Profile Signing" identity.
openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 36500 -set_serial 0x1001 \
    -keyout signer.key.pem -out signer.cert.pem \
    -subj "/CN=ipawrap Test Provisioning Profile Signing/O=ipawrap tests/C=US" 2>/dev/null

# certificate FILE SERIAL START END SUBJECT: a developer certificate with fixed validity, issued
# by the signer above (openssl ca takes explicit start and end dates; openssl x509 -days cannot).
certificate() {
    mkdir -p "$work/ca/new"
    : > "$work/ca/index.txt"
    printf '%s\n' "$2" > "$work/ca/serial"
    cat > "$work/ca.cnf" <<CNF
[ ca ]
default_ca = test
[ test ]
dir = $work/ca
database = \$dir/index.txt
new_certs_dir = \$dir/new
serial = \$dir/serial
default_md = sha256
policy = anything
unique_subject = no
copy_extensions = none
x509_extensions = developer
[ anything ]
commonName = supplied
organizationalUnitName = optional
organizationName = optional
countryName = optional
[ developer ]
keyUsage = critical, digitalSignature
extendedKeyUsage = critical, codeSigning
basicConstraints = critical, CA:false
CNF
    openssl req -new -newkey rsa:2048 -nodes -keyout "$work/dev.key" -out "$work/dev.csr" -subj "$5" 2>/dev/null
    openssl ca -batch -config "$work/ca.cnf" -cert signer.cert.pem -keyfile signer.key.pem \
        -startdate "$3" -enddate "$4" -notext -in "$work/dev.csr" -out "$work/dev.pem" 2>/dev/null
    openssl x509 -in "$work/dev.pem" -outform DER -out "$1"
}

certificate developer.cer 1A2B3C4D 20250101000000Z 20350101000000Z \
    "/CN=Apple Development: Test Developer (ABCDE12345)/OU=ABCDE12345/O=Example Corp/C=US"
certificate developer-expired.cer 0F0E0D0C 20200101000000Z 20210101000000Z \
    "/CN=iPhone Distribution: Example Corp (ABCDE12345)/OU=ABCDE12345/O=Example Corp/C=US"
certificate developer-other-team.cer 7777 20250101000000Z 20350101000000Z \
    "/CN=Apple Distribution: Other Company (ZYXWV98765)/OU=ZYXWV98765/O=Other Company/C=US"
