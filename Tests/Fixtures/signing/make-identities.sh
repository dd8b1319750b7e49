#!/bin/sh
# Regenerates the test signing identities: a stand-in for Apple's root and WWDR intermediate, the
# leaf certificates codesign-style requirements look at, their keys, and the .p12 files in the
# forms Keychain Access and `openssl pkcs12 -export` write. The outputs are committed; run this
# only to change them (then rewrite the signing profiles, see README.md). Needs openssl 3.
set -eu
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
password=$(cat password.txt)

# The extensions each kind of certificate carries. Apple marks its own (1.2.840.113635.100.6.*)
# critical on real leaves; here they are not, so that `openssl cms -verify -purpose any`, which
# refuses unknown critical extensions, can be an oracle.
cat > "$work/extensions.cnf" <<'CNF'
[ root ]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[ wwdr ]
basicConstraints = critical, CA:true, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
1.2.840.113635.100.6.2.1 = DER:0500
[ leaf ]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = critical, codeSigning
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
1.2.840.113635.100.6.1.2 = DER:0500
1.2.840.113635.100.6.1.4 = DER:0500
CNF

# issue NAME SERIAL START END SUBJECT EXTENSIONS ISSUER KEYTYPE: NAME.key.pem (PKCS #8) and
# NAME.pem, issued by ISSUER (ISSUER.pem, ISSUER.key.pem; "self" for a root) with fixed validity
# (openssl ca takes explicit start and end dates; openssl x509 -days cannot).
issue() {
    name=$1 serial=$2 start=$3 end=$4 subject=$5 extensions=$6 issuer=$7 keytype=$8
    case $keytype in
        rsa) openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$name.key.pem" 2>/dev/null ;;
        p256) openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$name.key.pem" 2>/dev/null ;;
    esac
    rm -rf "$work/ca"
    mkdir -p "$work/ca/new"
    : > "$work/ca/index.txt"
    printf '%s\n' "$serial" > "$work/ca/serial"
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
preserve = yes
copy_extensions = none
[ anything ]
userId = optional
commonName = supplied
organizationalUnitName = optional
organizationName = optional
countryName = optional
CNF
    openssl req -new -key "$name.key.pem" -out "$work/request.csr" -subj "$subject" -utf8 2>/dev/null
    if [ "$issuer" = self ]; then
        signer="-selfsign -keyfile $name.key.pem"
    else
        signer="-cert $issuer.pem -keyfile $issuer.key.pem"
    fi
    # shellcheck disable=SC2086
    openssl ca -batch -config "$work/ca.cnf" $signer -startdate "$start" -enddate "$end" -notext \
        -extfile "$work/extensions.cnf" -extensions "$extensions" -in "$work/request.csr" -out "$name.pem" 2>/dev/null
    openssl x509 -in "$name.pem" -outform DER -out "$name.cer"
}

issue root 01 20190101000000Z 20450101000000Z \
    "/C=US/O=ipawrap test/OU=Apple Certification Authority (stand-in)/CN=ipawrap Test Apple Root CA" root self rsa
issue wwdr 02 20190101000000Z 20400101000000Z \
    "/C=US/O=ipawrap test/OU=G3/CN=ipawrap Test Worldwide Developer Relations CA" wwdr root rsa
issue distribution 5A17C0DE 20250101000000Z 20350101000000Z \
    "/UID=ABCDE12345/CN=Apple Distribution: Example Corp (ABCDE12345)/OU=ABCDE12345/O=Example Corp/C=US" leaf wwdr rsa
issue distribution-ec 5A17C0DF 20250101000000Z 20350101000000Z \
    "/UID=ABCDE12345/CN=Apple Distribution: Example Corp (ABCDE12345)/OU=ABCDE12345/O=Example Corp/C=US" leaf wwdr p256
issue expired 0E0E0E0E 20200101000000Z 20210101000000Z \
    "/UID=ABCDE12345/CN=iPhone Distribution: Example Corp (ABCDE12345)/OU=ABCDE12345/O=Example Corp/C=US" leaf wwdr rsa
issue other-team 7E7E7E7E 20250101000000Z 20350101000000Z \
    "/UID=ZYXWV98765/CN=Apple Distribution: Other Company (ZYXWV98765)/OU=ZYXWV98765/O=Other Company/C=US" leaf wwdr rsa
cat wwdr.pem root.pem > chain.pem
rm root.key.pem wwdr.key.pem

# The .p12 forms. Keychain Access exports the identity alone (no chain), its key in a 3DES bag
# and its certificate in an RC2-40 bag, with a SHA-1 MAC; OpenSSL 3 writes AES-256-CBC with
# PBKDF2 and a SHA-256 MAC by default, and the Keychain algorithms with -legacy.
friendly="Apple Distribution: Example Corp (ABCDE12345)"
openssl pkcs12 -export -legacy -keypbe PBE-SHA1-3DES -certpbe PBE-SHA1-RC2-40 -macalg sha1 -iter 2048 \
    -name "$friendly" -inkey distribution.key.pem -in distribution.pem \
    -passout "pass:$password" -out distribution-keychain.p12
openssl pkcs12 -export -name "$friendly" -inkey distribution.key.pem -in distribution.pem -certfile chain.pem \
    -passout "pass:$password" -out distribution-openssl.p12
openssl pkcs12 -export -legacy -name "$friendly" -inkey distribution.key.pem -in distribution.pem -certfile chain.pem \
    -passout "pass:$password" -out distribution-openssl-legacy.p12
openssl pkcs12 -export -name "$friendly" -inkey distribution-ec.key.pem -in distribution-ec.pem -certfile chain.pem \
    -passout "pass:$password" -out distribution-ec.p12
openssl pkcs12 -export -name "iPhone Distribution: Example Corp (ABCDE12345)" -inkey expired.key.pem -in expired.pem \
    -certfile chain.pem -passout "pass:$password" -out expired.p12
openssl pkcs12 -export -name "Apple Distribution: Other Company (ZYXWV98765)" -inkey other-team.key.pem \
    -in other-team.pem -certfile chain.pem -passout "pass:$password" -out other-team.p12
