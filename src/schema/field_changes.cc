// ChangedFields and TopicOfSubject: what the impact analysis follows.
#include <algorithm>

#include "schema/schema.h"

namespace dw::schema {

std::vector<FieldChange> ChangedFields(const ParsedSchema& before, const ParsedSchema& after) {
  std::vector<FieldChange> out;
  std::vector<std::string> old_fields = before.TopLevelFields(), new_fields = after.TopLevelFields();
  auto has = [](const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); };
  std::vector<std::string> removed, added;
  for (const auto& f : old_fields)
    if (!has(new_fields, f)) removed.push_back(f);
  for (const auto& f : new_fields)
    if (!has(old_fields, f)) added.push_back(f);
  std::vector<std::string> explained;  // added fields that explain a removal
  for (const auto& f : removed) {
    FieldChange c{f, "removed", before.FieldType(f), "", ""};
    // Declared: a new field lists the old name among its aliases.
    for (const auto& a : added)
      if (has(after.FieldAliases(a), f)) {
        c.change = "renamed";
        c.renamed_to = a;
        c.to_type = after.FieldType(a);
      }
    // Likely: exactly one field removed and one added, of the same type.
    if (c.change == "removed" && removed.size() == 1 && added.size() == 1 && before.FieldType(f) == after.FieldType(added[0])) {
      c.change = "likely_renamed";
      c.renamed_to = added[0];
      c.to_type = after.FieldType(added[0]);
    }
    if (!c.renamed_to.empty()) explained.push_back(c.renamed_to);
    out.push_back(c);
  }
  for (const auto& f : added)
    if (!has(explained, f)) out.push_back({f, "added", "", after.FieldType(f), ""});
  for (const auto& f : old_fields)
    if (has(new_fields, f) && before.FieldType(f) != after.FieldType(f))
      out.push_back({f, "type_changed", before.FieldType(f), after.FieldType(f), ""});
  return out;
}

std::string TopicOfSubject(const std::string& subject) {
  for (const char* suffix : {"-value", "-key"}) {
    std::string s(suffix);
    if (subject.size() > s.size() && subject.compare(subject.size() - s.size(), s.size(), s) == 0)
      return subject.substr(0, subject.size() - s.size());
  }
  return "";
}

}  // namespace dw::schema
