// Schemas that are not valid Avro or JSON Schema are refused with the registry's code 42201 and the
// path of the problem; levels with 42203; deep nesting is bounded; a subject holding "/" or ".."
// travels as one encoded path segment.
#include <gtest/gtest.h>

#include "net/http_client.h"
#include "platforms/schema_registry/registry_client.h"
#include "schema/schema.h"

namespace dw::schema {
namespace {

std::string Refusal(const std::string& text, Format f = Format::kAvro) {
  auto p = Parse(text, f);
  EXPECT_FALSE(p.ok()) << text;
  if (p.ok()) return "";
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("42201"), std::string::npos) << p.status().message();
  return p.status().message();
}

TEST(SchemaBadInput, AvroSchemasAvroRefusesAreRefusedWithThePath) {
  EXPECT_NE(Refusal(R"({"type":"record","name":"r","fields":[{"name":"a","type":"integer"}]})").find("/fields/0/type: unknown type 'integer'"), std::string::npos);
  EXPECT_NE(Refusal(R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"},{"name":"a","type":"long"}]})").find("/fields/1/name: duplicate field 'a'"), std::string::npos);
  EXPECT_NE(Refusal(R"({"type":"record","name":"r","fields":[{"name":"a","type":"int","default":"zero"}]})").find("/fields/0/default"), std::string::npos);
  // A union's default must match its first branch.
  EXPECT_NE(Refusal(R"({"type":"record","name":"r","fields":[{"name":"a","type":["string","null"],"default":null}]})").find("first branch"), std::string::npos);
  // Recursion needs a named type: an anonymous reference to a record not yet defined is unknown.
  EXPECT_NE(Refusal(R"({"type":"record","name":"Node","fields":[{"name":"next","type":["null","Nod"]}]})").find("/fields/0/type/1: unknown type 'Nod'"), std::string::npos);
  EXPECT_NE(Refusal(R"({"type":"enum","name":"E","symbols":["A","A"]})").find("/symbols/1"), std::string::npos);
  EXPECT_NE(Refusal(R"({"type":"record","name":"9r","fields":[]})").find("/name"), std::string::npos);
  EXPECT_NE(Refusal(R"(["null",["int"]])").find("/1"), std::string::npos);
  EXPECT_NE(Refusal("{not json").find("not valid JSON"), std::string::npos);
  // A recursive record through its own name is valid.
  EXPECT_TRUE(Parse(R"({"type":"record","name":"Node","fields":[{"name":"next","type":["null","Node"],"default":null}]})", Format::kAvro).ok());
}

TEST(SchemaBadInput, JsonSchemasWithRefsOutOfTheDocumentOrLoopsAreRefused) {
  EXPECT_NE(Refusal(R"({"properties":{"a":{"$ref":"https://example.com/other.json"}}})", Format::kJson).find("#/properties/a/$ref"), std::string::npos);
  EXPECT_NE(Refusal(R"({"properties":{"a":{"$ref":"#/definitions/missing"}}})", Format::kJson).find("refers to nothing"), std::string::npos);
  EXPECT_NE(Refusal(R"({"$ref":"#"})", Format::kJson).find("refers to itself"), std::string::npos);
  EXPECT_NE(Refusal(R"({"type":"strin"})", Format::kJson).find("#/type: unknown type 'strin'"), std::string::npos);
  EXPECT_NE(Refusal(R"({"type":"object","required":"a"})", Format::kJson).find("#/required"), std::string::npos);
  // Recursion through a property is a valid, checkable schema.
  std::string list = R"({"definitions":{"n":{"type":"object","properties":{"next":{"$ref":"#/definitions/n"}}}},"$ref":"#/definitions/n"})";
  auto r = CheckCompatibility(list, Format::kJson, {{1, list, Format::kJson}}, Level::kFullTransitive);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->compatible);
}

// Found by the schema fuzz target (UBSan, in CI's smoke run): a count too large for any integer
// was converted to one, which is undefined behaviour. It is refused with its path; a multipleOf
// past int64_t is compared as "changed", never by dividing garbage.
TEST(SchemaBadInput, NumbersNoIntegerHoldsAreRefusedOrComparedWithoutOverflow) {
  const std::string huge = "6666666666666666666666666666666666666666666666666666666666666";
  EXPECT_NE(Refusal(R"({"type":"array","items":{"type":"string"},"maxItems":)" + huge + "}", Format::kJson)
                .find("#/maxItems"), std::string::npos);
  EXPECT_NE(Refusal(R"({"type":"string","minLength":1e300})", Format::kJson).find("#/minLength"), std::string::npos);
  EXPECT_NE(Refusal(R"({"type":"string","minLength":2.5})", Format::kJson).find("#/minLength"), std::string::npos);
  EXPECT_TRUE(Parse(R"({"type":"string","minLength":2.0})", Format::kJson).ok());
  const std::string before = R"({"type":"number","multipleOf":1e300})";
  const std::string after = R"({"type":"number","multipleOf":3})";
  auto r = CheckCompatibility(after, Format::kJson, {{1, before, Format::kJson}}, Level::kBackward);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NE(ReportJson(*r).dump().find("MULTIPLE_OF_CHANGED"), std::string::npos) << ReportJson(*r).dump();
}

// Found by the schema fuzz target's hour-long run (UBSan): a decimal's precision of 3e25 was
// converted to int, which is undefined behaviour. A precision or scale that is not an integer in
// int's range makes the logical type invalid, and Avro then reads the underlying type.
TEST(SchemaBadInput, ADecimalWhosePrecisionIsNoIntIsPlainBytes) {
  auto field = [](const std::string& type) {
    return R"({"type":"record","name":"r","fields":[{"name":"amount","type":)" + type + "}]}";
  };
  auto bytes = Parse(field(R"("bytes")"), Format::kAvro);
  auto decimal = Parse(field(R"({"type":"bytes","logicalType":"decimal","precision":12,"scale":2})"), Format::kAvro);
  ASSERT_TRUE(bytes.ok() && decimal.ok());
  for (const std::string precision : {"2.9999999999999900147402919e25", "2147483648", "-1e300", "\"12\"", "12.5"}) {
    auto odd = Parse(field(R"({"type":"bytes","logicalType":"decimal","precision":)" + precision + R"(,"scale":2})"), Format::kAvro);
    ASSERT_TRUE(odd.ok()) << precision << ": " << odd.status().ToString();
    EXPECT_TRUE(ChangedFields(*bytes, *odd).empty()) << precision;
    EXPECT_FALSE(ChangedFields(*decimal, *odd).empty()) << precision;
  }
  auto odd_scale = Parse(field(R"({"type":"bytes","logicalType":"decimal","precision":12,"scale":1e30})"), Format::kAvro);
  ASSERT_TRUE(odd_scale.ok());
  EXPECT_TRUE(ChangedFields(*bytes, *odd_scale).empty());
}

TEST(SchemaBadInput, DeepNestingIsBounded) {
  std::string avro = "\"int\"";
  for (int i = 0; i < 5000; ++i) avro = R"({"type":"array","items":)" + avro + "}";
  EXPECT_NE(Refusal(avro).find("nests deeper than 64"), std::string::npos);
  std::string json = "{}";
  for (int i = 0; i < 5000; ++i) json = R"({"type":"array","items":)" + json + "}";
  EXPECT_NE(Refusal(json, Format::kJson).find("nests deeper than 64"), std::string::npos);
}

TEST(SchemaBadInput, LevelsAndFormatsOutsideTheRegistrysAreRefused) {
  auto l = ParseLevel("SIDEWAYS");
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.status().message().find("42203"), std::string::npos);
  EXPECT_TRUE(ParseLevel("full_transitive").ok());
  EXPECT_FALSE(ParseFormat("PROTOBUF").ok());
  // An earlier version that does not parse is named.
  auto r = CheckCompatibility(R"("int")", Format::kAvro, {{4, "{bad", Format::kAvro}}, Level::kBackward);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("version 4"), std::string::npos);
}

TEST(SchemaBadInput, ASubjectWithSlashesOrDotsIsOneEncodedSegment) {
  config::PlatformConfig p;
  p.name = "registry";
  p.type = "schema-registry";
  p.url = "http://127.0.0.1:1";
  auto http = net::MakeCurlHttpClient();
  platforms::schema_registry::RegistryClient client(p, *http);
  EXPECT_EQ(client.call().Url({"subjects", "../../config", "versions"}), "http://127.0.0.1:1/subjects/..%2F..%2Fconfig/versions");
  EXPECT_EQ(client.call().Url({"subjects", "..", "versions"}), "http://127.0.0.1:1/subjects/%2E%2E/versions");
  EXPECT_TRUE(ValidateSubject("a/../b").ok());
  EXPECT_FALSE(ValidateSubject("").ok());
  EXPECT_FALSE(ValidateSubject(std::string("a\nb")).ok());
  EXPECT_FALSE(ValidateSubject(std::string(256, 'x')).ok());
}

}  // namespace
}  // namespace dw::schema
