#include "schema/corpus_case.h"

#include <algorithm>

namespace dw::schema {
namespace {

std::string Text(const Json& j) { return j.is_string() ? j.get<std::string>() : j.dump(); }

}  // namespace

Result<std::vector<CorpusCase>> ParseCorpus(const Json& file) {
  std::vector<CorpusCase> out;
  if (!file.is_object() || !file.contains("cases") || !file["cases"].is_array()) return InvalidArgument("a corpus file needs a \"cases\" array");
  for (const auto& j : file["cases"]) {
    CorpusCase c;
    c.id = j.value("id", "");
    try {
      c.source = j.at("source").get<std::string>();
      auto f = ParseFormat(j.at("schema_type").get<std::string>());
      if (!f.ok()) return InvalidArgument(c.id + ": " + f.status().message());
      c.format = *f;
      auto l = ParseLevel(j.at("level").get<std::string>());
      if (!l.ok()) return InvalidArgument(c.id + ": " + l.status().message());
      c.level = *l;
      for (const auto& p : j.at("previous")) {
        auto pf = ParseFormat(p.value("schema_type", FormatName(c.format)));
        if (!pf.ok()) return InvalidArgument(c.id + ": " + pf.status().message());
        c.previous.push_back({p.at("version").get<int64_t>(), Text(p.at("schema")), *pf});
      }
      c.schema = Text(j.at("schema"));
      c.compatible = j.at("compatible").get<bool>();
      c.checked_versions = j.at("checked_versions").get<std::vector<int64_t>>();
      c.messages = j.at("messages");
    } catch (const std::exception& e) {
      return InvalidArgument("corpus case '" + c.id + "' is malformed: " + e.what());
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::string ReplayCorpusCase(const CorpusCase& c) {
  auto r = CheckCompatibility(c.schema, c.format, c.previous, c.level);
  if (!r.ok()) return "the check failed: " + r.status().message();
  std::string why;
  if (r->compatible != c.compatible) why += std::string("verdict ") + (r->compatible ? "compatible" : "incompatible") + ", expected the opposite; ";
  if (r->checked_versions != c.checked_versions) why += "checked other versions; ";
  std::vector<bool> used(r->incompatibilities.size(), false);
  for (const auto& m : c.messages) {
    bool found = false;
    for (size_t i = 0; i < r->incompatibilities.size() && !found; ++i) {
      const auto& got = r->incompatibilities[i];
      if (used[i] || got.type != m.value("errorType", "") || got.path != m.value("path", "")) continue;
      if (m.contains("additionalInfo") && got.additional_info != m["additionalInfo"].get<std::string>()) continue;
      if (m.contains("description") && got.description != m["description"].get<std::string>()) continue;
      used[i] = found = true;
    }
    if (!found) why += "missing " + m.dump() + "; ";
  }
  for (size_t i = 0; i < used.size(); ++i)
    if (!used[i]) why += "unexpected " + r->incompatibilities[i].type + " at " + r->incompatibilities[i].path + " (" + r->incompatibilities[i].additional_info + "); ";
  return why;
}

}  // namespace dw::schema
