#include "sim/jwt_verify.h"

#include "base/base64.h"

namespace dw::sim {

std::optional<Json> VerifyRs256Jwt(const std::string& jwt, EVP_PKEY* key, std::string* why) {
  const size_t dot1 = jwt.find('.');
  const size_t dot2 = dot1 == std::string::npos ? dot1 : jwt.find('.', dot1 + 1);
  if (dot2 == std::string::npos || jwt.find('.', dot2 + 1) != std::string::npos) {
    *why = "malformed";
    return std::nullopt;
  }
  auto header = DecodeBase64(std::string_view(jwt).substr(0, dot1));
  auto claims_text = DecodeBase64(std::string_view(jwt).substr(dot1 + 1, dot2 - dot1 - 1));
  auto signature = DecodeBase64(std::string_view(jwt).substr(dot2 + 1));
  if (!header || !claims_text || !signature) {
    *why = "not base64url";
    return std::nullopt;
  }
  Json h = Json::parse(*header, nullptr, false), claims = Json::parse(*claims_text, nullptr, false);
  if (!h.is_object() || !h.contains("alg") || h["alg"] != "RS256") {
    *why = "alg must be RS256";
    return std::nullopt;
  }
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  const std::string signed_part = jwt.substr(0, dot2);
  const bool verified =
      ctx != nullptr && EVP_DigestVerifyInit(ctx, nullptr, EVP_sha256(), nullptr, key) == 1 &&
      EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(signature->data()), signature->size(),
                       reinterpret_cast<const unsigned char*>(signed_part.data()), signed_part.size()) == 1;
  EVP_MD_CTX_free(ctx);
  if (!verified) {
    *why = "signature";
    return std::nullopt;
  }
  if (!claims.is_object()) {
    *why = "claims are not an object";
    return std::nullopt;
  }
  return claims;
}

int64_t IntClaim(const Json& claims, const char* name) {
  auto it = claims.find(name);
  return it != claims.end() && it->is_number_integer() ? it->get<int64_t>() : int64_t{-1};
}

}  // namespace dw::sim
