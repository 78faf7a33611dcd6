/* klms/klms.h: the names of the klms OpenSSL provider, for programs that use it through EVP.
 *
 * Every name here is an interface: it is never renamed or given another meaning, only added to
 * (docs/developer-kit.md "Stability"). The provider's own sources take their names from this header
 * (provider/names.h), so the two cannot drift apart. Plain string macros, like OpenSSL's
 * <openssl/core_names.h>: use them with OSSL_PARAM_construct_*, EVP_PKEY_CTX_new_from_name and
 * property queries. The header declares no functions: the provider is a module loaded at run time,
 * and a program links only libcrypto (`pkg-config --cflags --libs klms`).
 */
#ifndef KLMS_KLMS_H
#define KLMS_KLMS_H

/* ---- The provider ----------------------------------------------------------------------------- */

/* The module's name for OSSL_PROVIDER_load() and openssl.cnf (klms.so in OpenSSL's modules
 * directory: `pkg-config --variable=modulesdir klms`). */
#define KLMS_PROVIDER_NAME "klms"
/* The property every algorithm of klms has; "?provider=klms" prefers klms where OpenSSL 3.6+ has an
 * algorithm of the same name (its verify-only LMS). */
#define KLMS_PROPERTY "provider=klms"
#define KLMS_PROPERTY_QUERY_PREFER "?provider=klms"

/* ---- Algorithm names --------------------------------------------------------------------------- */

/* HSS/LMS and K-LMS keys and signatures (RFC 8554, RFC 9858, NIST SP 800-208); all four name the
 * same algorithm. Never "LMS": OpenSSL 3.6+ owns that name for its own verify-only LMS. */
#define KLMS_ALG_HSS_LMS "HSS-LMS"
#define KLMS_ALG_HSS "HSS"
#define KLMS_ALG_HSS_LMS_SN "id-alg-hss-lms-hashsig" /* the OID's short name; the keys' type name */
#define KLMS_ALG_HSS_LMS_OID "1.2.840.113549.1.9.16.3.17"

/* XMSS and XMSS^MT keys and signatures (RFC 8391, NIST SP 800-208; RFC 9802's identifiers). A
 * K-XMSS set (XMSS over LSH-256 or a Tandem-DM hash) is an XMSS key; its type code says the hash.
 * The K-XMSS key generators are named "K-XMSS-" and the family's token: K-XMSS-LSH256,
 * K-XMSS-TDMCHAM, K-XMSS-TDMLEA, K-XMSS-TDMARIA. */
#define KLMS_ALG_XMSS "XMSS"
#define KLMS_ALG_XMSS_SN "id-alg-xmss-hashsig" /* the OID's short name; the keys' type name */
#define KLMS_ALG_XMSS_OID "1.3.6.1.5.5.7.6.34"
#define KLMS_ALG_XMSSMT "XMSSMT"
#define KLMS_ALG_XMSSMT_SN "id-alg-xmssmt-hashsig"
#define KLMS_ALG_XMSSMT_OID "1.3.6.1.5.5.7.6.35"
#define KLMS_ALG_KXMSS_PREFIX "K-XMSS-"

/* Digests (KS X 3262 LSH; Tandem-DM over CHAM, LEA, ARIA). The first name of each is its primary name. */
#define KLMS_MD_LSH_256_256 "LSH-256-256"
#define KLMS_MD_LSH_256 "LSH-256" /* = LSH-256-256 */
#define KLMS_MD_LSH256 "LSH256"   /* = LSH-256-256 */
#define KLMS_MD_LSH_256_224 "LSH-256-224"
#define KLMS_MD_LSH_224 "LSH-224" /* = LSH-256-224 */
#define KLMS_MD_LSH_512_512 "LSH-512-512"
#define KLMS_MD_LSH_512 "LSH-512" /* = LSH-512-512 */
#define KLMS_MD_LSH512 "LSH512"   /* = LSH-512-512 */
#define KLMS_MD_LSH_512_384 "LSH-512-384"
#define KLMS_MD_LSH_384 "LSH-384" /* = LSH-512-384 */
#define KLMS_MD_LSH_512_256 "LSH-512-256"
#define KLMS_MD_LSH_512_224 "LSH-512-224"
#define KLMS_MD_TDM_CHAM "TDM-CHAM"
#define KLMS_MD_TDM_LEA "TDM-LEA"
#define KLMS_MD_TDM_ARIA "TDM-ARIA"

/* ---- Key generation parameters (EVP_PKEY_CTX_set_params, genpkey -pkeyopt) ----------------------- */

/* The long form: LMS and LM-OTS parameter set names, one per level, comma-separated
 * ("LMS_SHA256_M32_H10,LMS_SHA256_M32_H10"); docs/params.md lists them. UTF-8 strings. */
#define KLMS_PKEY_PARAM_LMS "lms"
#define KLMS_PKEY_PARAM_OTS "ots"
/* The short form: a hash token (SHA256, SHA256/192, SHAKE, LSH256, TDMCHAM, ...), heights (5, 10,
 * 15, 20, 25) and Winternitz parameters (1, 2, 4, 8), comma-separated per level. UTF-8 strings. */
#define KLMS_PKEY_PARAM_HASH "hash"
#define KLMS_PKEY_PARAM_HEIGHT "height"
#define KLMS_PKEY_PARAM_WINTERNITZ "winternitz"
/* XMSS, XMSS^MT and K-XMSS: the parameter set's name as RFC 8391 and SP 800-208 write it
 * ("XMSS-SHA2_20_256", "XMSSMT-SHA2_40/4_256", "K-XMSS-LSH256_10_256"); docs/xmss.md lists them.
 * Also readable from such a key (the set of its public key). UTF-8 string. */
#define KLMS_PKEY_PARAM_PARAMS "params"
/* The state file of the new key: an absolute path (a relative one is made absolute); the file must
 * not exist and its directory must be private. UTF-8 string. Also gettable from a private key. */
#define KLMS_PKEY_PARAM_STATE_FILE "state-file"
/* Known-answer tests only: SEED and I supplied instead of drawn (octet strings). Keys made so sign
 * only with KLMS_ENV_ALLOW_SEEDED_KEYS=1 (docs/state.md §13). */
#define KLMS_PKEY_PARAM_SEED "seed"
#define KLMS_PKEY_PARAM_IDENTIFIER "identifier"
/* 1: write what key generation is building, how far it is and about how long is left on stderr
 * (integer 0 or 1; default KLMS_ENV_PROGRESS). docs/developer-kit.md "Progress". */
#define KLMS_PKEY_PARAM_PROGRESS "progress"
/* The rollback witness of the new key's state file: "tpm" (a TPM 2.0 NV counter), "etcd" (a fleet's
 * counter in an etcd cluster, docs/fleet.md) or "none"
 * (UTF-8 string; default: the configuration key KLMS_CONF_WITNESS, else none). docs/state.md
 * "The witness". */
#define KLMS_PKEY_PARAM_WITNESS "witness"

/* ---- Key parameters (EVP_PKEY_get_params) ------------------------------------------------------ */

/* Every level's LMS / LM-OTS parameter set, comma-separated (a public key: the top level's). UTF-8. */
/*   KLMS_PKEY_PARAM_LMS, KLMS_PKEY_PARAM_OTS (above) */
#define KLMS_PKEY_PARAM_LEVELS "levels"                    /* int: the number of HSS levels */
#define KLMS_PKEY_PARAM_MAX_SIGNATURES "max-signatures"    /* uint64, private keys */
#define KLMS_PKEY_PARAM_REMAINING_SIGNATURES "remaining-signatures" /* uint64, private keys: what the state file has left */
/*   KLMS_PKEY_PARAM_STATE_FILE (above): UTF-8, private keys */
#define KLMS_PKEY_PARAM_SEEDED "seeded"                    /* int 0/1, private keys: made from a supplied seed */

/* ---- Signature context parameters (EVP_PKEY_CTX_set_params on a signing context) ---------------- */

/* Sign with this state file instead of the key's own (an index lease: docs/state.md "Index
 * leases"). UTF-8 string, set before the first update. */
#define KLMS_SIGNATURE_PARAM_STATE_FILE "state-file"
/* Indices reserved per durable state-file write (uint64, 1 to 65536; default 1 or the configuration's
 * reserve). Unused reserved indices are lost when the process ends: safe, never reused. */
#define KLMS_SIGNATURE_PARAM_RESERVE "reserve"
/* Gettable: what the state file has left (uint64). */
#define KLMS_SIGNATURE_PARAM_REMAINING_SIGNATURES "remaining-signatures"

/* ---- Configuration keys (the provider's section in openssl.cnf, klms(7)) ------------------------ */

#define KLMS_CONF_STATE_DIR "state_dir"               /* where state files go without state-file */
#define KLMS_CONF_RESERVE "reserve"                   /* default reservation, 1 to 65536 */
#define KLMS_CONF_ALLOW_NETWORK_FS "allow_network_fs" /* 1: allow state files on NFS, SMB, FUSE */
#define KLMS_CONF_ALLOW_NO_FILE_HANDLES "allow_no_file_handles" /* 1: allow unwitnessed files on overlayfs */
#define KLMS_CONF_LOW_SIGNATURES_WARNING "low_signatures_warning" /* T recorded at key generation: docs/state.md §5; 0: never */
#define KLMS_DEFAULT_LOW_SIGNATURES_WARNING 100 /* its default (a number) */
/* The witness (docs/state.md "The witness"): the default for new keys ("tpm" or "none"), the TPM's
 * tpm2-tss TCTI string, a call's deadline, the owner authorization's file, the NV write budget. */
#define KLMS_CONF_WITNESS "witness"
#define KLMS_CONF_TPM_TCTI "tpm_tcti"
#define KLMS_CONF_TPM_TIMEOUT_MS "tpm_timeout_ms"
#define KLMS_CONF_TPM_OWNER_AUTH_FILE "tpm_owner_auth_file"
#define KLMS_CONF_TPM_NV_WRITE_BUDGET "tpm_nv_write_budget"
/* Where the witness modules are when KLMS_WITNESS_DIR is not set (docs/install.md "Witness modules"). */
#define KLMS_CONF_WITNESS_DIR "witness_dir"
/* The etcd fleet (docs/fleet.md "Configuration"): the cluster's client URLs (comma-separated), the
 * root prefix of klms's keys, mutual TLS files (PEM), the etcd user and the file holding its
 * password, a call's deadline, and how many indices a host takes from the key's counter at once. */
#define KLMS_CONF_ETCD_ENDPOINTS "etcd_endpoints"
#define KLMS_CONF_ETCD_PREFIX "etcd_prefix"
#define KLMS_CONF_ETCD_CACERT "etcd_cacert"
#define KLMS_CONF_ETCD_CERT "etcd_cert"
#define KLMS_CONF_ETCD_KEY "etcd_key"
#define KLMS_CONF_ETCD_USER "etcd_user"
#define KLMS_CONF_ETCD_PASSWORD_FILE "etcd_password_file"
#define KLMS_CONF_ETCD_TIMEOUT_MS "etcd_timeout_ms"
#define KLMS_CONF_ETCD_BLOCK "etcd_block"

/* ---- Environment variables ----------------------------------------------------------------------- */

#define KLMS_ENV_STATE_DIR "KLMS_STATE_DIR"                 /* state directory, before state_dir */
#define KLMS_ENV_PROGRESS "KLMS_PROGRESS"                   /* "1": progress lines on stderr */
#define KLMS_ENV_ALLOW_SEEDED_KEYS "KLMS_ALLOW_SEEDED_KEYS" /* "1": keys from a supplied seed may sign */
#define KLMS_ENV_TPM_TCTI "KLMS_TPM_TCTI"                   /* the TPM's TCTI, when tpm_tcti is not set */
#define KLMS_ENV_WITNESS_DIR "KLMS_WITNESS_DIR"             /* where witness modules are, before witness_dir and the search */
#define KLMS_ENV_ETCD_ENDPOINTS "KLMS_ETCD_ENDPOINTS"       /* each: when the etcd_* key is not set */
#define KLMS_ENV_ETCD_PREFIX "KLMS_ETCD_PREFIX"
#define KLMS_ENV_ETCD_CACERT "KLMS_ETCD_CACERT"
#define KLMS_ENV_ETCD_CERT "KLMS_ETCD_CERT"
#define KLMS_ENV_ETCD_KEY "KLMS_ETCD_KEY"
#define KLMS_ENV_ETCD_USER "KLMS_ETCD_USER"
#define KLMS_ENV_ETCD_PASSWORD_FILE "KLMS_ETCD_PASSWORD_FILE"
#define KLMS_ENV_ETCD_BLOCK "KLMS_ETCD_BLOCK"

#endif /* KLMS_KLMS_H */
