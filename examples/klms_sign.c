/* klms_sign.c: the klms provider from C through EVP, every return value checked.
 *
 * Generates a K-LMS key (LMS over LSH-256, a tree of 2^10 one-time keys) whose state file is
 * STATE-FILE, signs MESSAGE-FILE with it (pure signing: the message itself, no digest), verifies the
 * signature with the public key alone, and prints how many signatures the key has left.
 *
 *   cc -o klms_sign klms_sign.c $(pkg-config --cflags --libs klms)
 *   OPENSSL_CONF=/usr/share/klms/klms.cnf ./klms_sign /var/lib/klms/app.state message.bin
 *
 * <klms/klms.h> (package klms-dev) names the provider's algorithms and parameters; the program
 * links only libcrypto, the provider is loaded at run time.
 *
 * The providers come from the configuration file in OPENSSL_CONF when it loads them, else from
 * OSSL_PROVIDER_load (klms.so in OpenSSL's modules directory, or in OPENSSL_MODULES). STATE-FILE
 * must not exist yet and its directory must exist and be private (mode 0700). Exit status 0 when the
 * signature verifies, 1 on any error (printed with OpenSSL's error queue).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <klms/klms.h>

/* Which implementation: klms. OpenSSL 3.6+ built with its own (verify-only) LMS registers the same
 * algorithm names; this property query picks klms whenever both are loaded (klms.cnf sets it as the
 * default property query, a program that loads the providers itself passes it). */
static const char *const kPropq = KLMS_PROPERTY_QUERY_PREFER;

static int fail(const char *what) {
    fprintf(stderr, "klms_sign: %s failed\n", what);
    ERR_print_errors_fp(stderr);
    return 0;
}

/* Reads a whole file into a new buffer (freed by the caller with OPENSSL_free). */
static int read_file(const char *path, unsigned char **data, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return 0;
    }
    int ok = 0;
    long size = 0;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        *data = OPENSSL_malloc(size > 0 ? (size_t)size : 1);
        if (*data != NULL && fread(*data, 1, (size_t)size, f) == (size_t)size) {
            *len = (size_t)size;
            ok = 1;
        } else {
            OPENSSL_free(*data);
            *data = NULL;
        }
    }
    if (!ok) fprintf(stderr, "klms_sign: cannot read %s\n", path);
    fclose(f);
    return ok;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s STATE-FILE MESSAGE-FILE\n", argv[0]);
        return 2;
    }
    const char *state_file = argv[1];
    int ok = 0;
    OSSL_PROVIDER *klms = NULL, *dflt = NULL;
    EVP_PKEY_CTX *gctx = NULL;
    EVP_PKEY *key = NULL;
    EVP_MD_CTX *sctx = NULL, *vctx = NULL;
    unsigned char *msg = NULL, *sig = NULL;
    size_t msglen = 0, siglen = 0;
    uint64_t remaining = 0;
    OSSL_PARAM params[] = {
        OSSL_PARAM_utf8_string(KLMS_PKEY_PARAM_LMS, "LMS_LSH256_M32_H10", 0),
        OSSL_PARAM_utf8_string(KLMS_PKEY_PARAM_OTS, "LMOTS_LSH256_N32_W4", 0),
        OSSL_PARAM_utf8_string(KLMS_PKEY_PARAM_STATE_FILE, (char *)state_file, 0),
        OSSL_PARAM_END};
    OSSL_PARAM query[] = {OSSL_PARAM_uint64(KLMS_PKEY_PARAM_REMAINING_SIGNATURES, &remaining), OSSL_PARAM_END};

    /* Providers: "default" too, since an application that loads one provider explicitly no
     * longer gets the default one implicitly. */
    if (!OSSL_PROVIDER_available(NULL, KLMS_PROVIDER_NAME) &&
        (klms = OSSL_PROVIDER_load(NULL, KLMS_PROVIDER_NAME)) == NULL) {
        fail("OSSL_PROVIDER_load(klms)");
        goto done;
    }
    if (!OSSL_PROVIDER_available(NULL, "default") && (dflt = OSSL_PROVIDER_load(NULL, "default")) == NULL) {
        fail("OSSL_PROVIDER_load(default)");
        goto done;
    }
    if (!read_file(argv[2], &msg, &msglen)) goto done;

    /* Key generation: LMS_LSH256_M32_H10 / LMOTS_LSH256_N32_W4, one level (1024 signatures). */
    if ((gctx = EVP_PKEY_CTX_new_from_name(NULL, KLMS_ALG_HSS_LMS, kPropq)) == NULL) {
        fail("EVP_PKEY_CTX_new_from_name(HSS-LMS)");
        goto done;
    }
    if (EVP_PKEY_keygen_init(gctx) <= 0) { fail("EVP_PKEY_keygen_init"); goto done; }
    if (EVP_PKEY_CTX_set_params(gctx, params) <= 0) { fail("EVP_PKEY_CTX_set_params"); goto done; }
    if (EVP_PKEY_generate(gctx, &key) <= 0) { fail("EVP_PKEY_generate"); goto done; }

    /* Signing: no digest (pure). The first call asks for the size and reserves nothing; the second
     * takes one index, recorded durably in the state file before the signature is computed. */
    if ((sctx = EVP_MD_CTX_new()) == NULL) { fail("EVP_MD_CTX_new"); goto done; }
    if (EVP_DigestSignInit_ex(sctx, NULL, NULL, NULL, kPropq, key, NULL) != 1) { fail("EVP_DigestSignInit_ex"); goto done; }
    if (EVP_DigestSign(sctx, NULL, &siglen, msg, msglen) != 1) { fail("EVP_DigestSign (size)"); goto done; }
    if ((sig = OPENSSL_malloc(siglen)) == NULL) { fail("OPENSSL_malloc"); goto done; }
    if (EVP_DigestSign(sctx, sig, &siglen, msg, msglen) != 1) { fail("EVP_DigestSign"); goto done; }

    /* Verification with the same key object (a public key read from a file works the same). */
    if ((vctx = EVP_MD_CTX_new()) == NULL) { fail("EVP_MD_CTX_new"); goto done; }
    if (EVP_DigestVerifyInit_ex(vctx, NULL, NULL, NULL, kPropq, key, NULL) != 1) { fail("EVP_DigestVerifyInit_ex"); goto done; }
    if (EVP_DigestVerify(vctx, sig, siglen, msg, msglen) != 1) { fail("EVP_DigestVerify"); goto done; }

    /* How many signatures are left. */
    if (EVP_PKEY_get_params(key, query) != 1 || !OSSL_PARAM_modified(query)) {
        fail("EVP_PKEY_get_params(" KLMS_PKEY_PARAM_REMAINING_SIGNATURES ")");
        goto done;
    }
    printf("signature of %zu bytes verified; %" PRIu64 " signatures left\n", siglen, remaining);
    ok = 1;

done:
    EVP_MD_CTX_free(vctx);
    EVP_MD_CTX_free(sctx);
    OPENSSL_free(sig);
    OPENSSL_free(msg);
    EVP_PKEY_free(key);
    EVP_PKEY_CTX_free(gctx);
    if (dflt != NULL && OSSL_PROVIDER_unload(dflt) != 1) ok = fail("OSSL_PROVIDER_unload(default)");
    if (klms != NULL && OSSL_PROVIDER_unload(klms) != 1) ok = fail("OSSL_PROVIDER_unload(klms)");
    return ok ? 0 : 1;
}
