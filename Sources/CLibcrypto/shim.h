// OpenSSL 3's libcrypto, for PKCS #12 files and encrypted PEM keys: what SigningIdentity needs.
// Signing itself happens in swift-crypto; nothing here signs or verifies.
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/provider.h>
#include <openssl/x509.h>

// OpenSSL declares its typed stacks with macros Swift cannot import; these wrap the two calls
// a PKCS #12 chain needs.
static inline int ipawrap_x509_stack_count(const STACK_OF(X509) *stack) {
    return sk_X509_num(stack);
}

static inline X509 *ipawrap_x509_stack_value(const STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}

static inline void ipawrap_x509_stack_free(STACK_OF(X509) *stack) {
    sk_X509_pop_free(stack, X509_free);
}
