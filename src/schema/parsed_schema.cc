// Parse(): validation of either format behind one type, and the top-level field views that the
// impact analysis compares.
#include "schema/avro_schema.h"
#include "schema/json_schema_model.h"
#include "schema/parsed_schema_impl.h"
#include "schema/schema.h"

namespace dw::schema {

Result<Format> ParseFormat(std::string_view name) {
  std::string n(name);
  for (auto& c : n) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (n == "AVRO") return Format::kAvro;
  if (n == "JSON") return Format::kJson;
  return InvalidArgument("schema_type '" + std::string(name) + "' is not supported: use AVRO or JSON" +
                         (n == "PROTOBUF" ? " (Protobuf compatibility is not implemented)" : ""));
}

const char* FormatName(Format f) { return f == Format::kAvro ? "AVRO" : "JSON"; }

Result<ParsedSchema> Parse(std::string_view text, Format format) {
  auto impl = std::make_shared<ParsedSchema::Impl>();
  auto invalid = [&](const std::string& what) {
    return InvalidArgument(std::string("Invalid schema (error 42201): not a valid ") +
                           (format == Format::kAvro ? "Avro schema" : "JSON Schema") + " at " + what);
  };
  if (text.size() > kMaxSchemaBytes)
    return invalid("/: the schema is " + std::to_string(text.size()) + " bytes; at most " + std::to_string(kMaxSchemaBytes) + " are accepted");
  if (format == Format::kAvro) {
    auto s = avro::Parse(text);
    if (!s.ok()) return invalid(s.status().message());
    impl->avro = *s;
  } else {
    Json doc = Json::parse(text, nullptr, false);
    if (doc.is_discarded()) return invalid("#: the schema is not valid JSON");
    auto m = jsonschema::BuildModel(doc);
    if (!m.ok()) return invalid(m.status().message());
    impl->json = std::make_shared<jsonschema::Model>(std::move(m).value());
    impl->doc = std::move(doc);
  }
  ParsedSchema p;
  p.format_ = format;
  p.text_ = std::string(text);
  p.impl = impl;
  return p;
}

namespace {

std::string AvroTypeText(const avro::Node& n) {
  using avro::Type;
  if (n.named()) return n.full_name();
  switch (n.type) {
    case Type::kArray: return "array<" + AvroTypeText(*n.items) + ">";
    case Type::kMap: return "map<" + AvroTypeText(*n.items) + ">";
    case Type::kUnion: {
      std::string s = "[";
      for (size_t i = 0; i < n.branches.size(); ++i) s += (i ? "," : "") + AvroTypeText(*n.branches[i]);
      return s + "]";
    }
    default: {
      std::string s = avro::TypeName(n.type);
      for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return n.logical_type.empty() ? s : s + "(" + n.logical_type + ")";
    }
  }
}

const jsonschema::Node* JsonObjectRoot(const ParsedSchema::Impl& impl) {
  const auto& m = *impl.json;
  const jsonschema::Node* n = &m.nodes[m.Deref(m.root)];
  if (n->kind == jsonschema::Kind::kCombined)  // e.g. {"type": "object", "enum": ...}: use its object part
    for (int s : n->subs)
      if (m.nodes[m.Deref(s)].kind == jsonschema::Kind::kObject) return &m.nodes[m.Deref(s)];
  return n->kind == jsonschema::Kind::kObject ? n : nullptr;
}

}  // namespace

std::vector<std::string> ParsedSchema::TopLevelFields() const {
  std::vector<std::string> out;
  if (!impl) return out;
  if (impl->avro) {
    const avro::Node* r = impl->avro->root();
    if (r->type == avro::Type::kRecord)
      for (const auto& f : r->fields) out.push_back(f.name);
  } else if (const auto* o = JsonObjectRoot(*impl)) {
    for (const auto& [k, v] : o->properties) out.push_back(k);
  }
  return out;
}

std::string ParsedSchema::FieldType(const std::string& name) const {
  if (!impl) return "";
  if (impl->avro) {
    const avro::Node* r = impl->avro->root();
    if (r->type != avro::Type::kRecord) return "";
    auto it = r->field_index.find(name);
    return it == r->field_index.end() ? "" : AvroTypeText(*r->fields[it->second].type);
  }
  if (!impl->doc.is_object()) return "";
  const Json* props = nullptr;
  if (auto p = impl->doc.find("properties"); p != impl->doc.end() && p->is_object()) props = &*p;
  if (!props || !props->contains(name)) return "";
  const Json& prop = (*props)[name];
  if (prop.is_object() && prop.contains("type")) return prop["type"].is_string() ? prop["type"].get<std::string>() : prop["type"].dump();
  return prop.dump();
}

std::vector<std::string> ParsedSchema::FieldAliases(const std::string& name) const {
  if (!impl || !impl->avro) return {};
  const avro::Node* r = impl->avro->root();
  if (r->type != avro::Type::kRecord) return {};
  auto it = r->field_index.find(name);
  return it == r->field_index.end() ? std::vector<std::string>{} : r->fields[it->second].aliases;
}

}  // namespace dw::schema
