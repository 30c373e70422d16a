#include "graph/facts_fingerprint.h"

#include <functional>
#include <string_view>

namespace dw::graph {
namespace {

// Folds `v` into `h` (the 64-bit finalizer of MurmurHash3 over the sum): order-dependent, so
// ("a","b") and ("b","a") differ.
uint64_t Mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return h;
}

// Strings carry their length, so ("ab","c") and ("a","bc") differ.
uint64_t MixString(uint64_t h, std::string_view s) {
  return Mix(Mix(h, s.size()), std::hash<std::string_view>{}(s));
}

uint64_t MixJson(uint64_t h, const Json& v) {
  h = Mix(h, static_cast<uint64_t>(v.type()));
  switch (v.type()) {
    case Json::value_t::object:
      h = Mix(h, v.size());
      for (const auto& [key, item] : v.items()) h = MixJson(MixString(h, key), item);
      return h;
    case Json::value_t::array:
      h = Mix(h, v.size());
      for (const Json& item : v) h = MixJson(h, item);
      return h;
    case Json::value_t::string:
      return MixString(h, v.get_ref<const std::string&>());
    case Json::value_t::boolean:
      return Mix(h, v.get<bool>() ? 1 : 0);
    case Json::value_t::number_integer:
      return Mix(h, static_cast<uint64_t>(v.get<int64_t>()));
    case Json::value_t::number_unsigned:
      return Mix(h, v.get<uint64_t>());
    case Json::value_t::number_float: {
      const double d = v.get<double>();
      return MixString(h, std::string_view(reinterpret_cast<const char*>(&d), sizeof d));
    }
    case Json::value_t::binary:
      return MixString(h, std::string_view(reinterpret_cast<const char*>(v.get_binary().data()),
                                           v.get_binary().size()));
    case Json::value_t::null:
    case Json::value_t::discarded:
      return h;
  }
  return h;
}

uint64_t MixList(uint64_t h, const std::vector<std::string>& list) {
  h = Mix(h, list.size());
  for (const std::string& s : list) h = MixString(h, s);
  return h;
}

}  // namespace

uint64_t JsonFingerprint(const Json& value) { return MixJson(0x6a09e667f3bcc908ULL, value); }

uint64_t FactsFingerprint(const AssetFacts& f) {
  uint64_t h = 0xbb67ae8584caa73bULL;
  h = MixString(h, f.domain);
  h = MixString(h, f.owner);
  h = MixString(h, f.schedule);
  h = MixString(h, f.schedule_timezone);
  h = Mix(h, f.schedule_disabled ? 1 : 0);
  h = MixString(h, f.disabled_since);
  h = Mix(h, f.customer_facing ? (*f.customer_facing ? 2 : 1) : 0);
  h = MixList(h, f.tags);
  h = MixString(h, f.impact_sql);
  h = MixString(h, f.notes);
  return MixList(h, f.aliases);
}

}  // namespace dw::graph
