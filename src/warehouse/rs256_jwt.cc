#include "warehouse/rs256_jwt.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>

#include "base/base64.h"

namespace dw::warehouse {
namespace {

using Pkey = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

Result<Pkey> ReadRsaPrivateKey(const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
  Pkey key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr, EVP_PKEY_free);
  if (!key || EVP_PKEY_base_id(key.get()) != EVP_PKEY_RSA)
    return InvalidArgument("the private key is not an RSA private key in PEM form (PKCS#8, unencrypted)");
  return key;
}

}  // namespace

Result<std::string> SignRs256Jwt(const std::string& private_key_pem, const Json& claims) {
  Result<Pkey> key = ReadRsaPrivateKey(private_key_pem);
  if (!key.ok()) return key.status();
  const Json header = {{"alg", "RS256"}, {"typ", "JWT"}};
  const std::string input = Base64Url(header.dump()) + "." + Base64Url(claims.dump());
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  const auto* data = reinterpret_cast<const unsigned char*>(input.data());
  size_t len = 0;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key->get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &len, data, input.size()) != 1)
    return Internal("signing a JWT failed");
  std::string sig(len, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len, data, input.size()) != 1)
    return Internal("signing a JWT failed");
  sig.resize(len);
  return input + "." + Base64Url(sig);
}

Result<std::string> RsaPublicKeyFingerprint(const std::string& private_key_pem) {
  Result<Pkey> key = ReadRsaPrivateKey(private_key_pem);
  if (!key.ok()) return key.status();
  unsigned char* der = nullptr;
  const int n = i2d_PUBKEY(key->get(), &der);
  if (n <= 0) return Internal("encoding the public key failed");
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_len = 0;
  const bool ok = EVP_Digest(der, static_cast<size_t>(n), digest, &digest_len, EVP_sha256(), nullptr) == 1;
  OPENSSL_free(der);
  if (!ok) return Internal("hashing the public key failed");
  return "SHA256:" + Base64(std::string_view(reinterpret_cast<const char*>(digest), digest_len));
}

}  // namespace dw::warehouse
