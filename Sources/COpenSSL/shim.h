#ifndef TERN_COPENSSL_SHIM_H
#define TERN_COPENSSL_SHIM_H
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/decoder.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <openssl/x509.h>

/// EVP_PKEY_CTX_set_rsa_padding and friends are macros in some OpenSSL versions; wrap what we use.
static inline int tern_evp_pkey_ctx_set_rsa_padding(EVP_PKEY_CTX *ctx, int padding) {
    return EVP_PKEY_CTX_set_rsa_padding(ctx, padding);
}
static inline int tern_evp_pkey_ctx_set_rsa_pss_saltlen(EVP_PKEY_CTX *ctx, int len) {
    return EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, len);
}
/// EVP_PKEY_PUBLIC_KEY is a compound macro Swift cannot import: the selection for OSSL_DECODER.
static inline int tern_evp_pkey_public_key_selection(void) {
    return EVP_PKEY_PUBLIC_KEY;
}
/// SSL_set_tlsext_host_name, SSL_CTX_set_mode and SSL_CTX_set_min_proto_version are macros over
/// SSL_ctrl / SSL_CTX_ctrl.
static inline long tern_ssl_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}
static inline long tern_ssl_ctx_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}
static inline long tern_ssl_ctx_set_read_ahead(SSL_CTX *ctx, int yes) {
    SSL_CTX_set_read_ahead(ctx, yes);
    return 1;
}
static inline int tern_ssl_ctx_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
/// SHA-256's implementation, fetched once. `EVP_sha256()` has OpenSSL 3 look the implementation up
/// again for every digest (a query of the providers under a lock): half of an idempotency
/// fingerprint's time in the write routes' profile. A race on the first call fetches twice and
/// frees the copy that lost.
static EVP_MD *tern_sha256_fetched = NULL;
static inline const EVP_MD *tern_sha256_md(void) {
    EVP_MD *md = __atomic_load_n(&tern_sha256_fetched, __ATOMIC_ACQUIRE);
    if (md != NULL) return md;
    EVP_MD *made = EVP_MD_fetch(NULL, "SHA256", NULL);
    EVP_MD *expected = NULL;
    if (__atomic_compare_exchange_n(&tern_sha256_fetched, &expected, made, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        return made;
    }
    EVP_MD_free(made);
    return expected;
}
#endif
