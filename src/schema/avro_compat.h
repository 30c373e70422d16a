// Avro schema resolution as a check: can data written with `writer` be read with `reader`? Follows
// the rules of Avro's SchemaCompatibility, which the Schema Registry applies: records match fields
// by name or by the reader field's aliases, a reader field the writer lacks needs a default,
// promotions int→long→float→double and string↔bytes, enum symbols the reader lacks need the
// reader's enum default, every writer union branch must be readable, named types match by
// unqualified name or reader alias, fixed sizes must be equal. Every incompatibility is reported
// (not only the first), each with the location Avro gives it, in Avro's order.
#pragma once

#include <vector>

#include "schema/avro_schema.h"
#include "schema/difference.h"

namespace dw::schema::avro {

// The incompatibilities of reading `writer` data with `reader`; empty when compatible.
std::vector<Difference> ReadDifferences(const Schema& reader, const Schema& writer);

// Notes that do not make the schemas incompatible for the registry but change what readers see
// (a decimal's precision or scale changed): one sentence each.
std::vector<std::string> ReadNotes(const Schema& reader, const Schema& writer);

}  // namespace dw::schema::avro
