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

// PKCS #12 read one structure at a time (SigningIdentity's PKCS12Contents), so that each key
// derivation's cost is known, and bounded, before libcrypto runs it: the typed stacks of
// ContentInfos and SafeBags, and the two fields of a ContentInfo Swift cannot reach in its union.
static inline int ipawrap_pkcs7_stack_count(const STACK_OF(PKCS7) *stack) {
    return sk_PKCS7_num(stack);
}

static inline PKCS7 *ipawrap_pkcs7_stack_value(const STACK_OF(PKCS7) *stack, int index) {
    return sk_PKCS7_value(stack, index);
}

static inline void ipawrap_pkcs7_stack_free(STACK_OF(PKCS7) *stack) {
    sk_PKCS7_pop_free(stack, PKCS7_free);
}

static inline int ipawrap_safebag_stack_count(const STACK_OF(PKCS12_SAFEBAG) *stack) {
    return sk_PKCS12_SAFEBAG_num(stack);
}

static inline const PKCS12_SAFEBAG *ipawrap_safebag_stack_value(const STACK_OF(PKCS12_SAFEBAG) *stack, int index) {
    return sk_PKCS12_SAFEBAG_value(stack, index);
}

static inline void ipawrap_safebag_stack_free(STACK_OF(PKCS12_SAFEBAG) *stack) {
    sk_PKCS12_SAFEBAG_pop_free(stack, PKCS12_SAFEBAG_free);
}

/// A ContentInfo's content type (NID_pkcs7_data, NID_pkcs7_encrypted, ...).
static inline int ipawrap_pkcs7_type(const PKCS7 *p7) {
    return OBJ_obj2nid(p7->type);
}

/// The algorithm an EncryptedData ContentInfo's content is encrypted with, or NULL.
static inline const X509_ALGOR *ipawrap_pkcs7_encryption(const PKCS7 *p7) {
    if (OBJ_obj2nid(p7->type) != NID_pkcs7_encrypted || p7->d.encrypted == NULL || p7->d.encrypted->enc_data == NULL) {
        return NULL;
    }
    return p7->d.encrypted->enc_data->algorithm;
}
