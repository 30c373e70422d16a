// RSA private keys for the warehouse clients' tests (Google service accounts, Snowflake key-pair
// users): generated per process, PKCS#8 PEM, never a key checked into the tree.
#pragma once

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <string>

namespace dw::testing {

// A fresh RSA private key as PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----").
inline std::string GenerateRsaKeyPem() {
  EVP_PKEY* key = EVP_RSA_gen(2048);
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<size_t>(n));
  BIO_free(bio);
  EVP_PKEY_free(key);
  return pem;
}

// One key per test process (generating one costs tens of milliseconds).
inline const std::string& TestKeyPem() {
  static const std::string pem = GenerateRsaKeyPem();
  return pem;
}

}  // namespace dw::testing
