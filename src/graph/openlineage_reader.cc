#include "graph/openlineage_reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <thread>

#include "base/identifiers.h"
#include "base/json.h"
#include "base/json_scan.h"
#include "base/rfc3339.h"
#include "graph/openlineage_names.h"

namespace dw::graph {
namespace {

using namespace std::string_view_literals;

// What the JSON container being read stands for. Array kinds hold elements of the kind after them.
enum class Frame : uint8_t {
  kSkip,  // a value we do not use (unknown facets, extra keys) or a container of the wrong type
  kEventList, kEvent,
  kRun, kRunFacets, kErrorMessage, kEngine,
  kJob, kJobFacets, kJobType,
  kDatasets, kDataset, kDatasetFacets,
  kSchema, kSchemaFields, kSchemaField,
  kSymlinks, kIdentifiers, kIdentifier,
  kColumnLineage, kColumnFields, kColumnSpec, kInputFields, kInputField,
};

bool IsArrayFrame(Frame f) {
  return f == Frame::kEventList || f == Frame::kDatasets || f == Frame::kSchemaFields ||
         f == Frame::kIdentifiers || f == Frame::kInputFields;
}

// Where the next value goes: the frame to open when it is a container of the right type, the
// shape to record, the string to fill, and the record the frame fills.
struct Slot {
  Frame frame = Frame::kSkip;
  JsonShape* shape = nullptr;
  ShapedString* str = nullptr;
  void* obj = nullptr;
};

struct Open {
  Frame frame;
  void* obj;
};

// nlohmann SAX handler that fills RunEventText. Every callback returns false to stop parsing.
class EventSax {
 public:
  EventSax(bool allow_array, int max_depth, RunEventText* out)
      : allow_array_(allow_array), max_depth_(max_depth), out_(out) {
    stack_.reserve(16);
  }

  bool null() { return Scalar(JsonShape::kNull, nullptr); }
  bool boolean(bool) { return Scalar(JsonShape::kOther, nullptr); }
  bool number_integer(Json::number_integer_t) { return Scalar(JsonShape::kOther, nullptr); }
  bool number_unsigned(Json::number_unsigned_t) { return Scalar(JsonShape::kOther, nullptr); }
  bool number_float(Json::number_float_t, const std::string&) { return Scalar(JsonShape::kOther, nullptr); }
  bool string(std::string& s) { return Scalar(JsonShape::kString, &s); }
  bool binary(Json::binary_t&) { return Scalar(JsonShape::kOther, nullptr); }
  bool start_object(std::size_t) { return Start(true); }
  bool start_array(std::size_t) { return Start(false); }
  bool end_object() { return End(); }
  bool end_array() { return End(); }
  bool key(std::string& k) {
    if (TooDeep()) return false;
    pending_ = KeySlot(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
    syntax_error_ = true;
    return false;
  }

  bool syntax_error() const { return syntax_error_; }
  bool too_deep() const { return too_deep_; }

 private:
  // nlohmann's depth callback counts the containers around a token; deeper than max_depth fails.
  bool TooDeep() {
    if (max_depth_ > 0 && static_cast<int>(stack_.size()) > max_depth_) too_deep_ = true;
    return too_deep_;
  }

  bool Scalar(JsonShape shape, const std::string* s) {
    if (TooDeep()) return false;
    Slot slot = TakeSlot(false);
    Record(slot, shape, s);
    return true;
  }

  bool Start(bool object) {
    if (TooDeep()) return false;
    Slot slot = TakeSlot(!object);
    Record(slot, object ? JsonShape::kObject : JsonShape::kArray, nullptr);
    Frame f = slot.frame != Frame::kSkip && IsArrayFrame(slot.frame) != object ? slot.frame : Frame::kSkip;
    stack_.push_back({f, slot.obj});
    return true;
  }

  bool End() {
    stack_.pop_back();
    pending_ = Slot{};
    return true;
  }

  static void Record(const Slot& slot, JsonShape shape, const std::string* s) {
    if (slot.shape) *slot.shape = shape;
    if (slot.str) {
      slot.str->shape = shape;
      if (s) {
        slot.str->text = *s;
      } else {
        slot.str->text.clear();
      }
    }
  }

  // The slot of the value that arrives now: the root, an array element, or the member whose key
  // came last.
  Slot TakeSlot(bool is_array) {
    if (stack_.empty()) {
      if (allow_array_ && is_array) {
        out_->array = true;
        return {Frame::kEventList, nullptr, nullptr, &out_->events};
      }
      out_->events.emplace_back();
      return {Frame::kEvent, &out_->events.back().shape, nullptr, &out_->events.back()};
    }
    const Open& top = stack_.back();
    switch (top.frame) {
      case Frame::kEventList: {
        auto& v = *static_cast<std::vector<RunEventFields>*>(top.obj);
        v.emplace_back();
        return {Frame::kEvent, &v.back().shape, nullptr, &v.back()};
      }
      case Frame::kDatasets: {
        auto& v = *static_cast<std::vector<OlDataset>*>(top.obj);
        v.emplace_back();
        return {Frame::kDataset, &v.back().shape, nullptr, &v.back()};
      }
      case Frame::kSchemaFields: {
        auto& v = *static_cast<std::vector<OlSchemaField>*>(top.obj);
        v.emplace_back();
        return {Frame::kSchemaField, &v.back().shape, nullptr, &v.back()};
      }
      case Frame::kIdentifiers: {
        auto& v = *static_cast<std::vector<OlIdentifier>*>(top.obj);
        v.emplace_back();
        return {Frame::kIdentifier, &v.back().shape, nullptr, &v.back()};
      }
      case Frame::kInputFields: {
        auto& v = *static_cast<std::vector<OlInputField>*>(top.obj);
        v.emplace_back();
        return {Frame::kInputField, &v.back().shape, nullptr, &v.back()};
      }
      default: {
        Slot s = pending_;
        pending_ = Slot{};
        return s;
      }
    }
  }

  static Slot Str(ShapedString* s) {
    *s = ShapedString{};
    return {Frame::kSkip, nullptr, s, nullptr};
  }

  // The slot for member `k` of the object on top. A repeated key starts its member afresh (the
  // DOM keeps the last value).
  Slot KeySlot(const std::string& k) {
    const Open& top = stack_.back();
    switch (top.frame) {
      case Frame::kEvent: {
        auto* e = static_cast<RunEventFields*>(top.obj);
        if (k == "eventType"sv) return Str(&e->event_type);
        if (k == "eventTime"sv) return Str(&e->event_time);
        if (k == "schemaURL"sv) return Str(&e->schema_url);
        if (k == "dataset"sv) {
          e->dataset = OlDataset{};
          return {Frame::kDataset, &e->dataset.shape, nullptr, &e->dataset};
        }
        if (k == "run"sv) {
          e->run = e->run_facets = e->error_message = e->processing_engine = JsonShape::kAbsent;
          e->run_id = e->error_text = e->engine_name = ShapedString{};
          return {Frame::kRun, &e->run, nullptr, e};
        }
        if (k == "job"sv) {
          e->job = e->job_facets = e->job_type = JsonShape::kAbsent;
          e->job_ns = e->job_name = e->integration = ShapedString{};
          return {Frame::kJob, &e->job, nullptr, e};
        }
        if (k == "inputs"sv) {
          e->in.clear();
          return {Frame::kDatasets, &e->inputs, nullptr, &e->in};
        }
        if (k == "outputs"sv) {
          e->out.clear();
          return {Frame::kDatasets, &e->outputs, nullptr, &e->out};
        }
        return {};
      }
      case Frame::kRun: {
        auto* e = static_cast<RunEventFields*>(top.obj);
        if (k == "runId"sv) return Str(&e->run_id);
        if (k == "facets"sv) {
          e->run_facets = e->error_message = e->processing_engine = JsonShape::kAbsent;
          e->error_text = e->engine_name = ShapedString{};
          return {Frame::kRunFacets, &e->run_facets, nullptr, e};
        }
        return {};
      }
      case Frame::kRunFacets: {
        auto* e = static_cast<RunEventFields*>(top.obj);
        if (k == "errorMessage"sv) {
          e->error_text = ShapedString{};
          return {Frame::kErrorMessage, &e->error_message, nullptr, e};
        }
        if (k == "processing_engine"sv) {
          e->engine_name = ShapedString{};
          return {Frame::kEngine, &e->processing_engine, nullptr, e};
        }
        return {};
      }
      case Frame::kErrorMessage:
        if (k == "message"sv) return Str(&static_cast<RunEventFields*>(top.obj)->error_text);
        return {};
      case Frame::kEngine:
        if (k == "name"sv) return Str(&static_cast<RunEventFields*>(top.obj)->engine_name);
        return {};
      case Frame::kJob: {
        auto* e = static_cast<RunEventFields*>(top.obj);
        if (k == "namespace"sv) return Str(&e->job_ns);
        if (k == "name"sv) return Str(&e->job_name);
        if (k == "facets"sv) {
          e->job_facets = e->job_type = JsonShape::kAbsent;
          e->integration = ShapedString{};
          return {Frame::kJobFacets, &e->job_facets, nullptr, e};
        }
        return {};
      }
      case Frame::kJobFacets: {
        auto* e = static_cast<RunEventFields*>(top.obj);
        if (k == "jobType"sv) {
          e->integration = ShapedString{};
          return {Frame::kJobType, &e->job_type, nullptr, e};
        }
        return {};
      }
      case Frame::kJobType:
        if (k == "integration"sv) return Str(&static_cast<RunEventFields*>(top.obj)->integration);
        return {};
      case Frame::kDataset: {
        auto* d = static_cast<OlDataset*>(top.obj);
        if (k == "namespace"sv) return Str(&d->ns);
        if (k == "name"sv) return Str(&d->name);
        if (k == "facets"sv) {
          d->facets = d->schema = d->schema_fields = d->symlinks = d->identifiers = d->column_lineage =
              d->cl_fields = JsonShape::kAbsent;
          d->fields.clear();
          d->idents.clear();
          d->columns.clear();
          return {Frame::kDatasetFacets, &d->facets, nullptr, d};
        }
        return {};
      }
      case Frame::kDatasetFacets: {
        auto* d = static_cast<OlDataset*>(top.obj);
        if (k == "schema"sv) {
          d->schema_fields = JsonShape::kAbsent;
          d->fields.clear();
          return {Frame::kSchema, &d->schema, nullptr, d};
        }
        if (k == "symlinks"sv) {
          d->identifiers = JsonShape::kAbsent;
          d->idents.clear();
          return {Frame::kSymlinks, &d->symlinks, nullptr, d};
        }
        if (k == "columnLineage"sv) {
          d->cl_fields = JsonShape::kAbsent;
          d->columns.clear();
          return {Frame::kColumnLineage, &d->column_lineage, nullptr, d};
        }
        return {};
      }
      case Frame::kSchema: {
        auto* d = static_cast<OlDataset*>(top.obj);
        if (k == "fields"sv) {
          d->fields.clear();
          return {Frame::kSchemaFields, &d->schema_fields, nullptr, &d->fields};
        }
        return {};
      }
      case Frame::kSchemaField: {
        auto* f = static_cast<OlSchemaField*>(top.obj);
        if (k == "name"sv) return Str(&f->name);
        if (k == "type"sv) return Str(&f->type);
        return {};
      }
      case Frame::kSymlinks: {
        auto* d = static_cast<OlDataset*>(top.obj);
        if (k == "identifiers"sv) {
          d->idents.clear();
          return {Frame::kIdentifiers, &d->identifiers, nullptr, &d->idents};
        }
        return {};
      }
      case Frame::kIdentifier: {
        auto* i = static_cast<OlIdentifier*>(top.obj);
        if (k == "namespace"sv) return Str(&i->ns);
        if (k == "name"sv) return Str(&i->name);
        return {};
      }
      case Frame::kColumnLineage: {
        auto* d = static_cast<OlDataset*>(top.obj);
        if (k == "fields"sv) {
          d->columns.clear();
          return {Frame::kColumnFields, &d->cl_fields, nullptr, d};
        }
        return {};
      }
      case Frame::kColumnFields: {
        OlColumnSpec& spec = static_cast<OlDataset*>(top.obj)->columns[k];
        spec = OlColumnSpec{};
        return {Frame::kColumnSpec, &spec.shape, nullptr, &spec};
      }
      case Frame::kColumnSpec: {
        auto* spec = static_cast<OlColumnSpec*>(top.obj);
        if (k == "inputFields"sv) {
          spec->inputs.clear();
          return {Frame::kInputFields, &spec->input_fields, nullptr, &spec->inputs};
        }
        return {};
      }
      case Frame::kInputField: {
        auto* i = static_cast<OlInputField*>(top.obj);
        if (k == "namespace"sv) return Str(&i->ns);
        if (k == "name"sv) return Str(&i->name);
        if (k == "field"sv) return Str(&i->field);
        return {};
      }
      default:
        return {};
    }
  }

  bool allow_array_;
  int max_depth_;
  RunEventText* out_;
  std::vector<Open> stack_;
  Slot pending_;
  bool syntax_error_ = false;
  bool too_deep_ = false;
};

Status Bad(const std::string& path, const std::string& why) { return InvalidArgument(path + ": " + why); }

// Paths are made by `path()` only when there is a problem to name: an event's fields are checked
// on every intake, and building their paths each time cost more than the checks.
template <typename Path>
Status RequireString(const ShapedString& s, const Path& path, std::string_view member) {
  if (s.shape == JsonShape::kAbsent) return Bad(path() + std::string(member), "required");
  if (!s.IsNonEmptyString()) return Bad(path() + std::string(member), "expected a non-empty string");
  return Status::Ok();
}

// A member at a fixed path.
Status RequireString(const ShapedString& s, const char* path) {
  return RequireString(s, [path] { return std::string(path); }, "");
}

Status OptionalObject(JsonShape shape, const std::string& path) {
  if (shape != JsonShape::kAbsent && shape != JsonShape::kObject && shape != JsonShape::kNull)
    return Bad(path, "expected an object");
  return Status::Ok();
}

// The dataset at `path()` ("$.inputs[1]", "$.dataset").
template <typename Path>
Status ValidateDataset(const OlDataset& d, const Path& path) {
  if (d.shape != JsonShape::kObject) return Bad(path(), "expected an object");
  DW_RETURN_IF_ERROR(RequireString(d.ns, path, ".namespace"));
  if (std::string why = DatasetNamespaceProblem(d.ns.text); !why.empty()) return Bad(path() + ".namespace", why);
  DW_RETURN_IF_ERROR(RequireString(d.name, path, ".name"));
  if (d.facets != JsonShape::kAbsent && d.facets != JsonShape::kObject && d.facets != JsonShape::kNull)
    return Bad(path() + ".facets", "expected an object");
  if (d.facets != JsonShape::kObject) return Status::Ok();
  if (d.schema != JsonShape::kAbsent) {
    auto sp = [&] { return path() + ".facets.schema"; };
    if (d.schema != JsonShape::kObject) return Bad(sp(), "expected an object");
    if (d.schema_fields != JsonShape::kAbsent) {
      if (d.schema_fields != JsonShape::kArray) return Bad(sp() + ".fields", "expected an array");
      for (size_t i = 0; i < d.fields.size(); ++i) {
        auto p = [&] { return sp() + ".fields[" + std::to_string(i) + "]"; };
        if (d.fields[i].shape != JsonShape::kObject) return Bad(p(), "expected an object");
        DW_RETURN_IF_ERROR(RequireString(d.fields[i].name, p, ".name"));
      }
    }
  }
  if (d.symlinks != JsonShape::kAbsent) {
    auto sp = [&] { return path() + ".facets.symlinks"; };
    if (d.symlinks != JsonShape::kObject) return Bad(sp(), "expected an object");
    if (d.identifiers != JsonShape::kAbsent) {
      if (d.identifiers != JsonShape::kArray) return Bad(sp() + ".identifiers", "expected an array");
      for (size_t i = 0; i < d.idents.size(); ++i) {
        auto p = [&] { return sp() + ".identifiers[" + std::to_string(i) + "]"; };
        if (d.idents[i].shape != JsonShape::kObject) return Bad(p(), "expected an object");
        DW_RETURN_IF_ERROR(RequireString(d.idents[i].ns, p, ".namespace"));
        DW_RETURN_IF_ERROR(RequireString(d.idents[i].name, p, ".name"));
      }
    }
  }
  if (d.column_lineage != JsonShape::kAbsent) {
    auto cp = [&] { return path() + ".facets.columnLineage"; };
    if (d.column_lineage != JsonShape::kObject) return Bad(cp(), "expected an object");
    if (d.cl_fields == JsonShape::kAbsent) return Bad(cp() + ".fields", "required");
    if (d.cl_fields != JsonShape::kObject) return Bad(cp() + ".fields", "expected an object");
    // Named members, not a structured binding: clang before 16 (the fuzz build's, tests/fuzz/)
    // cannot capture a binding in a lambda.
    for (const auto& column : d.columns) {
      const std::string& out = column.first;
      const OlColumnSpec& spec = column.second;
      auto p = [&] { return cp() + ".fields['" + out + "']"; };
      if (spec.shape != JsonShape::kObject) return Bad(p(), "expected an object");
      if (spec.input_fields == JsonShape::kAbsent) return Bad(p() + ".inputFields", "required");
      if (spec.input_fields != JsonShape::kArray) return Bad(p() + ".inputFields", "expected an array");
      for (size_t i = 0; i < spec.inputs.size(); ++i) {
        auto ip = [&] { return p() + ".inputFields[" + std::to_string(i) + "]"; };
        const OlInputField& in = spec.inputs[i];
        if (in.shape != JsonShape::kObject) return Bad(ip(), "expected an object");
        DW_RETURN_IF_ERROR(RequireString(in.ns, ip, ".namespace"));
        if (std::string why = DatasetNamespaceProblem(in.ns.text); !why.empty()) return Bad(ip() + ".namespace", why);
        DW_RETURN_IF_ERROR(RequireString(in.name, ip, ".name"));
        DW_RETURN_IF_ERROR(RequireString(in.field, ip, ".field"));
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Result<RunEventText> ParseRunEventText(std::string_view text, bool allow_array, int max_depth,
                                       RunEventTextError* error) {
  {
    // The fast path: JsonLexer reads well-formed text several times faster than nlohmann's lexer.
    // Anything it refuses, or that the handler stops (too deep), is read again by nlohmann below,
    // so the answer and the error are nlohmann's for every input.
    RunEventText fast;
    EventSax sax(allow_array, max_depth, &fast);
    if (ScanJson(text, &sax) == JsonScanResult::kOk) {
      if (error) *error = RunEventTextError::kNone;
      return fast;
    }
  }
  RunEventText out;
  EventSax sax(allow_array, max_depth, &out);
  bool ok = false;
  try {
    ok = Json::sax_parse(text.data(), text.data() + text.size(), &sax);
  } catch (const std::exception&) {
    ok = false;  // sax_parse reports through parse_error; this is only a guard at the edge
  }
  RunEventTextError why = RunEventTextError::kNone;
  if (!ok) why = sax.too_deep() ? RunEventTextError::kTooDeep : RunEventTextError::kSyntax;
  if (error) *error = why;
  if (why == RunEventTextError::kTooDeep)
    return InvalidArgument("JSON nesting deeper than " + std::to_string(max_depth));
  if (why == RunEventTextError::kSyntax) return InvalidArgument("not valid JSON");
  return out;
}

namespace {

OlEventType EventTypeOf(const RunEventFields& e) {
  return TellEventType(e.schema_url.shape == JsonShape::kString ? std::string_view(e.schema_url.text) : "",
                       e.run != JsonShape::kAbsent, e.job != JsonShape::kAbsent,
                       e.dataset.shape != JsonShape::kAbsent);
}

}  // namespace

Status ValidateRunEventFields(const RunEventFields& e) {
  if (e.shape != JsonShape::kObject) return Bad("$", "a run event is a JSON object");
  if (e.event_time.shape != JsonShape::kAbsent) {
    if (e.event_time.shape != JsonShape::kString) return Bad("$.eventTime", "expected an RFC 3339 string");
    auto t = ParseEventTime(e.event_time.text);
    if (!t.ok()) return Bad("$.eventTime", t.status().message());
  }
  const OlEventType type = EventTypeOf(e);
  if (type == OlEventType::kUnknown) return Bad("$", kUntoldEventType);
  if (type == OlEventType::kRun && e.event_type.shape != JsonShape::kAbsent && e.event_type.shape != JsonShape::kNull) {
    if (e.event_type.shape != JsonShape::kString || !IsRunEventType(e.event_type.text))
      return Bad("$.eventType", "expected one of START, RUNNING, COMPLETE, ABORT, FAIL, OTHER");
  }
  if (type == OlEventType::kDataset) {
    if (e.dataset.shape == JsonShape::kAbsent) return Bad("$.dataset", "required");
    return ValidateDataset(e.dataset, [] { return std::string("$.dataset"); });
  }
  if (type == OlEventType::kRun) {
    if (e.run == JsonShape::kAbsent) return Bad("$.run", "required");
    if (e.run != JsonShape::kObject) return Bad("$.run", "expected an object");
    DW_RETURN_IF_ERROR(RequireString(e.run_id, "$.run.runId"));
    DW_RETURN_IF_ERROR(OptionalObject(e.run_facets, "$.run.facets"));
  }
  if (e.job == JsonShape::kAbsent) return Bad("$.job", "required");
  if (e.job != JsonShape::kObject) return Bad("$.job", "expected an object");
  DW_RETURN_IF_ERROR(RequireString(e.job_ns, "$.job.namespace"));
  DW_RETURN_IF_ERROR(RequireString(e.job_name, "$.job.name"));
  DW_RETURN_IF_ERROR(OptionalObject(e.job_facets, "$.job.facets"));
  for (int side = 0; side < 2; ++side) {
    JsonShape shape = side == 0 ? e.inputs : e.outputs;
    const char* name = side == 0 ? "$.inputs" : "$.outputs";
    if (shape == JsonShape::kAbsent || shape == JsonShape::kNull) continue;
    if (shape != JsonShape::kArray) return Bad(name, "expected an array");
    const auto& list = side == 0 ? e.in : e.out;
    for (size_t i = 0; i < list.size(); ++i)
      DW_RETURN_IF_ERROR(ValidateDataset(list[i], [&] { return std::string(name) + "[" + std::to_string(i) + "]"; }));
  }
  return Status::Ok();
}

namespace {

std::vector<std::string> Symlinks(const OlDataset& d) {
  std::vector<std::string> out;
  if (d.facets == JsonShape::kObject && d.symlinks == JsonShape::kObject)
    for (const OlIdentifier& ident : d.idents) out.push_back(ident.ns.text + "/" + ident.name.text);
  return out;
}

// The asset a dataset stands for: its id, other names and the schema facet's columns.
AssetFacts DatasetAsset(const OlDataset& d, ResolvedDataset r) {
  AssetFacts f;
  f.id = std::move(r.id);
  f.aliases = std::move(r.aliases);
  if (d.facets == JsonShape::kObject && d.schema == JsonShape::kObject && d.schema_fields == JsonShape::kArray &&
      !d.fields.empty()) {
    // Built member by member: nlohmann's initializer lists copy every value twice.
    Json cols(Json::value_t::array);
    auto& list = cols.get_ref<Json::array_t&>();
    list.reserve(d.fields.size());
    for (const OlSchemaField& fld : d.fields) {
      auto& column = list.emplace_back(Json::value_t::object).get_ref<Json::object_t&>();
      column.emplace("name", fld.name.text);
      if (fld.type.shape == JsonShape::kString) column.emplace("type", fld.type.text);
    }
    f.columns = std::move(cols);
  }
  return f;
}

// The columnLineage facet of `d` as edge columns, each input named by its asset id: the id this
// event gave that namespace/name (`inputs`), else what the graph resolves it to (an input listed
// only by the run's START event is known by then), never the raw namespace/name.
Json ColumnLineage(const OlDataset& d, std::vector<std::pair<std::string, std::string>>& inputs,
                   const GraphIndex& index, std::string_view job_id) {
  Json cols = Json::array();
  for (const auto& [out, spec] : d.columns) {
    Json from = Json::array();
    for (const OlInputField& in : spec.inputs) {
      std::string key = in.ns.text + "/" + in.name.text;
      const std::string* asset = nullptr;
      for (const auto& [k, v] : inputs)
        if (k == key) asset = &v;
      if (!asset) {
        std::string id = ResolveRunEventDataset(in.ns.text, in.name.text, {}, index, job_id).id;
        asset = &inputs.emplace_back(std::move(key), std::move(id)).second;
      }
      from.push_back(Json{{"asset", *asset}, {"column", in.field.text}});
    }
    cols.push_back(Json{{"column", out}, {"from", std::move(from)}});
  }
  return cols;
}

// A DatasetEvent: the dataset's facts, and an edge from each dataset its column lineage reads.
Result<SourceBatch> DatasetEventBatch(const OlDataset& d, const GraphIndex& index) {
  ResolvedDataset r = ResolveRunEventDataset(d.ns.text, d.name.text, Symlinks(d), index);
  if (!IsCanonicalAssetId(r.id)) return Bad("$.dataset", "'" + d.name.text + "' does not make a valid asset id");
  SourceBatch batch;
  batch.origin = Origin::kOpenLineage;
  batch.assets.push_back(DatasetAsset(d, std::move(r)));
  const std::string& id = batch.assets.back().id;
  if (d.facets == JsonShape::kObject && d.column_lineage == JsonShape::kObject) {
    std::vector<std::pair<std::string, std::string>> inputs;
    Json cols = ColumnLineage(d, inputs, index, id);
    for (const auto& [key, src] : inputs) {
      if (src == id || !IsCanonicalAssetId(src)) continue;
      bool seen = false;
      for (const EdgeFacts& e : batch.edges) seen = seen || e.src == src;
      if (!seen) batch.edges.push_back({src, id, "feeds", cols});
    }
  }
  return batch;
}

}  // namespace

Result<SourceBatch> RunEventFieldsBatch(const RunEventFields& e, const GraphIndex& index, TimePoint now) {
  DW_RETURN_IF_ERROR(ValidateRunEventFields(e));
  const OlEventType type = EventTypeOf(e);
  if (type == OlEventType::kDataset) return DatasetEventBatch(e.dataset, index);
  const std::string& jns = e.job_ns.text;
  const std::string& jname = e.job_name.text;
  const std::string_view event_type =
      e.event_type.shape == JsonShape::kString ? std::string_view(e.event_type.text) : "OTHER";
  TimePoint at = now;
  if (e.event_time.shape == JsonShape::kString) at = *ParseEventTime(e.event_time.text);

  auto text_of = [](JsonShape container, const ShapedString& s) {
    return container == JsonShape::kObject && s.shape == JsonShape::kString ? std::string_view(s.text)
                                                                             : std::string_view();
  };
  const bool job_facets = e.job_facets == JsonShape::kObject;
  const bool run_facets = type == OlEventType::kRun && e.run_facets == JsonShape::kObject;
  std::string kind = RunEventJobKind(job_facets ? text_of(e.job_type, e.integration) : std::string_view(),
                                     run_facets ? text_of(e.processing_engine, e.engine_name) : std::string_view());
  auto resolved_job = ResolveRunEventJob(jns, jname, kind, index);
  if (!resolved_job.ok()) return resolved_job.status();
  const std::string& job_id = *resolved_job;
  const std::string job_alias = jns + "/" + jname;

  SourceBatch batch;
  batch.origin = Origin::kOpenLineage;
  batch.assets.reserve(1 + e.in.size() + e.out.size());
  batch.edges.reserve(e.in.size() + e.out.size());
  AssetFacts jf;
  jf.id = job_id;
  if (job_alias != job_id) jf.aliases.push_back(job_alias);
  batch.assets.push_back(std::move(jf));

  // Inputs first: column lineage on outputs refers to them by namespace/name.
  std::vector<std::pair<std::string, std::string>> input_ids;  // namespace/name -> id; the last wins
  for (int side = 0; side < 2; ++side) {
    const auto& list = side == 0 ? e.in : e.out;
    for (size_t i = 0; i < list.size(); ++i) {
      const OlDataset& d = list[i];
      ResolvedDataset r = ResolveRunEventDataset(d.ns.text, d.name.text, Symlinks(d), index, job_id);
      if (!IsCanonicalAssetId(r.id))
        return Bad(std::string(side == 0 ? "$.inputs" : "$.outputs") + "[" + std::to_string(i) + "]",
                   "'" + d.name.text + "' does not make a valid asset id");
      std::string id = r.id;
      batch.assets.push_back(DatasetAsset(d, std::move(r)));
      if (side == 0) {
        std::string key = d.ns.text + "/" + d.name.text;
        bool replaced = false;
        for (auto& [k, v] : input_ids)
          if (k == key) v = id, replaced = true;
        if (!replaced) input_ids.emplace_back(std::move(key), id);
        batch.edges.push_back({std::move(id), job_id, "feeds", nullptr});
        continue;
      }
      EdgeFacts edge{job_id, std::move(id), "feeds", nullptr};
      if (d.facets == JsonShape::kObject && d.column_lineage != JsonShape::kAbsent)
        edge.columns = ColumnLineage(d, input_ids, index, job_id);
      batch.edges.push_back(std::move(edge));
    }
  }
  if (type == OlEventType::kJob) {
    // A JobEvent declares what the job reads and writes: it replaces the job's earlier edges when
    // it lists either side (one that only describes the job leaves them).
    if (e.inputs == JsonShape::kArray || e.outputs == JsonShape::kArray) batch.stale_scope = job_id;
    return batch;
  }
  if (event_type == "COMPLETE") batch.stale_scope = job_id;
  if (event_type == "COMPLETE" || event_type == "FAIL" || event_type == "ABORT") {
    JobRun r;
    r.job = job_id;
    r.run_id = e.run_id.text;
    r.event_type = event_type;
    r.at = at;
    if (run_facets) r.message = std::string(text_of(e.error_message, e.error_text));
    batch.runs.push_back(std::move(r));
  }
  return batch;
}

Result<SourceBatch> RunEventTextBatch(std::string_view text, const GraphIndex& index, TimePoint now) {
  auto read = ParseRunEventText(text, /*allow_array=*/false);
  if (!read.ok()) return read.status();
  return RunEventFieldsBatch(read->events.front(), index, now);
}

EventLines RunEventLinesBatches(std::string_view text, const GraphIndex& index, TimePoint now, int threads) {
  struct Line {
    std::string_view text;
    size_t number;
  };
  std::vector<Line> lines;
  size_t number = 0;
  for (std::string_view rest = text; !rest.empty();) {
    size_t eol = rest.find('\n');
    std::string_view line = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
    ++number;
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) lines.push_back({line, number});
  }
  std::vector<std::optional<SourceBatch>> out(lines.size());
  std::vector<std::string> why(lines.size());
  const size_t workers = std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(std::max(threads, 1)),
                                                              lines.size() / 256 + 1));
  // Each worker takes one contiguous slice; a bad line is noted and the next one read.
  auto work = [&](size_t w) {
    size_t begin = lines.size() * w / workers, end = lines.size() * (w + 1) / workers;
    for (size_t i = begin; i < end; ++i) {
      auto b = RunEventTextBatch(lines[i].text, index, now);
      if (b.ok()) {
        out[i] = std::move(b).value();
      } else {
        why[i] = b.status().message();
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t w = 1; w < workers; ++w) pool.emplace_back(work, w);
  work(0);
  for (auto& t : pool) t.join();
  EventLines result;
  result.batches.reserve(out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i]) {
      result.batches.push_back(std::move(*out[i]));
    } else {
      result.refused.push_back({lines[i].number, std::move(why[i])});
    }
  }
  return result;
}

}  // namespace dw::graph
