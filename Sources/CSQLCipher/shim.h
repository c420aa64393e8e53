#ifndef GRDBCIPHER_SHIM_H
#define GRDBCIPHER_SHIM_H

// sqlite3_key, sqlite3_rekey and friends are only declared when SQLITE_HAS_CODEC is defined.
#ifndef SQLITE_HAS_CODEC
#define SQLITE_HAS_CODEC 1
#endif

// pkg-config's cflags put SQLCipher's include directory first, so this is SQLCipher's
// sqlite3.h, not the system SQLite's.
#include <sqlite3.h>

// OpenSSL's libcrypto, which SQLCipher itself uses on Linux: the DatabasePool key cache derives
// keys with the same PBKDF2 as SQLCipher.
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

// Swift cannot call C variadic functions: one fixed-signature wrapper per sqlite3_db_config shape.
static inline int grdbcipher_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}

// SQLite's error log (sqlite3_config is variadic). Only effective before SQLite initializes.
typedef void (*grdbcipher_log_callback)(void *context, int code, const char *message);
static inline int grdbcipher_config_log(grdbcipher_log_callback callback, void *context) {
    return sqlite3_config(SQLITE_CONFIG_LOG, callback, context);
}

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type grdbcipher_transient_destructor(void) {
    return SQLITE_TRANSIENT;
}

// The pointer type of `SELECT fts5(?1)`. SQLite keeps the type name of a bound pointer and
// compares it while the statement steps, so it must have static storage: a C string literal,
// never a temporary C string made from a Swift String.
static inline const char *grdbcipher_fts5_api_pointer_type(void) {
    return "fts5_api_ptr";
}

// PBKDF2 with HMAC-SHA1 (algorithm 1), HMAC-SHA256 (256) or HMAC-SHA512 (512), as SQLCipher
// derives its keys. Returns 1 on success.
static inline int grdbcipher_pbkdf2(const void *passphrase, int passphraseLength,
                                    const unsigned char *salt, int saltLength,
                                    int iterations, int algorithm,
                                    unsigned char *out, int outLength) {
    const EVP_MD *digest = algorithm == 1 ? EVP_sha1() : (algorithm == 256 ? EVP_sha256() : EVP_sha512());
    return PKCS5_PBKDF2_HMAC((const char *)passphrase, passphraseLength, salt, saltLength,
                             iterations, digest, outLength, out);
}

// HMAC-SHA256 of data into out (32 bytes). Returns 1 on success.
static inline int grdbcipher_hmac_sha256(const unsigned char *key, int keyLength,
                                         const void *data, size_t dataLength,
                                         unsigned char *out) {
    unsigned int length = 32;
    return HMAC(EVP_sha256(), key, keyLength, (const unsigned char *)data, dataLength, out, &length) != NULL;
}

// Random bytes from OpenSSL's generator, for keys, salts and nonces. Returns 1 on success.
static inline int grdbcipher_random_bytes(unsigned char *out, int length) {
    return RAND_bytes(out, length);
}

// AES-256-GCM (OpenSSL's EVP AEAD), for the keys of a keyring: key 32 bytes, nonce 12 bytes,
// tag 16 bytes; the ciphertext has the length of the plaintext. Returns 1 on success.
static inline int grdbcipher_aes256gcm_seal(const unsigned char *key, const unsigned char *nonce,
                                            const unsigned char *aad, int aadLength,
                                            const unsigned char *plaintext, int length,
                                            unsigned char *ciphertext, unsigned char *tag) {
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    if (context == NULL) return 0;
    int written = 0;
    int ok = EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), NULL, NULL, NULL) == 1
        && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) == 1
        && EVP_EncryptInit_ex(context, NULL, NULL, key, nonce) == 1
        && (aadLength == 0 || EVP_EncryptUpdate(context, NULL, &written, aad, aadLength) == 1)
        && EVP_EncryptUpdate(context, ciphertext, &written, plaintext, length) == 1
        && EVP_EncryptFinal_ex(context, ciphertext + written, &written) == 1
        && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, tag) == 1;
    EVP_CIPHER_CTX_free(context);
    return ok;
}

// Opens what grdbcipher_aes256gcm_seal sealed. Returns 1 when the tag authenticates the
// ciphertext and the associated data, 0 otherwise (wrong key, or altered bytes).
static inline int grdbcipher_aes256gcm_open(const unsigned char *key, const unsigned char *nonce,
                                            const unsigned char *aad, int aadLength,
                                            const unsigned char *ciphertext, int length,
                                            const unsigned char *tag, unsigned char *plaintext) {
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    if (context == NULL) return 0;
    int written = 0;
    int ok = EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), NULL, NULL, NULL) == 1
        && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) == 1
        && EVP_DecryptInit_ex(context, NULL, NULL, key, nonce) == 1
        && (aadLength == 0 || EVP_DecryptUpdate(context, NULL, &written, aad, aadLength) == 1)
        && EVP_DecryptUpdate(context, plaintext, &written, ciphertext, length) == 1
        && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, (void *)tag) == 1
        && EVP_DecryptFinal_ex(context, plaintext + written, &written) == 1;
    EVP_CIPHER_CTX_free(context);
    return ok;
}

#endif
