// The Avro and JSON Schema parsers of src/schema/ (schema::Parse) and the compatibility check over
// them. The first byte picks the format and level; the rest is split at the first NUL into an
// earlier schema and a new one. Properties: a schema that parses checks against itself as
// compatible at every level (the registry's rule: identical schemas are always compatible).
#include "schema/schema.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  using dw::schema::Format;
  using dw::schema::Level;
  const Format format = (data[0] & 1) ? Format::kJson : Format::kAvro;
  const Level level = static_cast<Level>((data[0] >> 1) % 7);
  const std::string_view rest = dw::fuzz::AsText(data + 1, size - 1);
  const size_t cut = rest.find('\0');
  const std::string_view earlier = rest.substr(0, cut);
  const std::string_view later = cut == std::string_view::npos ? earlier : rest.substr(cut + 1);

  auto parsed = dw::schema::Parse(earlier, format);
  if (parsed.ok()) {
    auto self = dw::schema::CheckCompatibility(earlier, format, {{1, std::string(earlier), format}}, level);
    if (!self.ok()) dw::fuzz::Broken("a schema that parses fails the check against itself");
    if (!self->compatible) dw::fuzz::Broken("a schema is incompatible with itself");
    (void)dw::schema::ReportJson(*self);
  }
  auto report = dw::schema::CheckCompatibility(later, format, {{1, std::string(earlier), format}}, level);
  if (report.ok()) (void)dw::schema::ReportJson(*report);
  return 0;
}
