// CanonicalJson: one encoding per value, so a hash or a signature over it means one thing.
// Written out here rather than taken from Json::dump() so the rules in actions.h are ours to
// keep whatever the JSON library's defaults become.
#include <openssl/evp.h>

#include <array>

#include "actions/actions.h"
#include "base/hex.h"
#include "base/utf8.h"

namespace dw::actions {
namespace {

void AppendString(std::string_view s, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 0xF]);
        } else {
          out.push_back(ch);
        }
    }
  }
  out.push_back('"');
}

Status Encode(const Json& v, const std::string& path, std::string& out) {
  switch (v.type()) {
    case Json::value_t::null: out += "null"; return Status::Ok();
    case Json::value_t::boolean: out += v.get<bool>() ? "true" : "false"; return Status::Ok();
    case Json::value_t::number_integer: out += std::to_string(v.get<int64_t>()); return Status::Ok();
    case Json::value_t::number_unsigned: {
      uint64_t u = v.get<uint64_t>();
      if (u > static_cast<uint64_t>(INT64_MAX))
        return InvalidArgument(path + ": integer " + std::to_string(u) + " is out of range");
      out += std::to_string(u);
      return Status::Ok();
    }
    case Json::value_t::number_float:
      return InvalidArgument(path + ": a fraction (" + v.dump() +
                             ") must be written as a fixed string, not a number");
    case Json::value_t::string: {
      const std::string& s = v.get_ref<const std::string&>();
      if (!IsValidUtf8(s)) return InvalidArgument(path + ": string is not valid UTF-8");
      AppendString(s, out);
      return Status::Ok();
    }
    case Json::value_t::array: {
      out.push_back('[');
      for (size_t i = 0; i < v.size(); ++i) {
        if (i) out.push_back(',');
        DW_RETURN_IF_ERROR(Encode(v[i], path + "[" + std::to_string(i) + "]", out));
      }
      out.push_back(']');
      return Status::Ok();
    }
    case Json::value_t::object: {
      // nlohmann's object is a std::map: keys are unique and iterate in byte order.
      out.push_back('{');
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!first) out.push_back(',');
        first = false;
        if (!IsValidUtf8(it.key())) return InvalidArgument(path + ": a key is not valid UTF-8");
        AppendString(it.key(), out);
        out.push_back(':');
        DW_RETURN_IF_ERROR(Encode(it.value(), path + "." + it.key(), out));
      }
      out.push_back('}');
      return Status::Ok();
    }
    default:
      return InvalidArgument(path + ": binary or discarded values have no canonical form");
  }
}

}  // namespace

Result<std::string> CanonicalJson(const Json& value) {
  std::string out;
  Status s = Encode(value, "$", out);
  if (!s.ok()) return s;
  return out;
}

std::string Sha256Hex(std::string_view bytes) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  EVP_Digest(bytes.data(), bytes.size(), md.data(), &len, EVP_sha256(), nullptr);
  return LowerHex(md.data(), len);
}

}  // namespace dw::actions
