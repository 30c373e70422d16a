#include "graph/openlineage_event.h"

#include <algorithm>
#include <map>

#include "base/identifiers.h"
#include "base/rfc3339.h"
#include "graph/openlineage_names.h"

namespace dw::graph {
namespace {

// obj[key] without copying it (Json::value copies); a shared null when absent or obj is no object.
const Json& Member(const Json& obj, const char* key) {
  static const Json kNull;
  if (!obj.is_object()) return kNull;
  auto it = obj.find(key);
  return it == obj.end() ? kNull : *it;
}

Status Bad(const std::string& path, const std::string& why) {
  return InvalidArgument(path + ": " + why);
}

Status RequireString(const Json& obj, const char* key, const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end()) return Bad(path + "." + key, "required");
  if (!it->is_string() || it->get_ref<const std::string&>().empty())
    return Bad(path + "." + key, "expected a non-empty string");
  return Status::Ok();
}

Status OptionalObject(const Json& obj, const char* key, const std::string& path) {
  auto it = obj.find(key);
  if (it != obj.end() && !it->is_object() && !it->is_null()) return Bad(path + "." + key, "expected an object");
  return Status::Ok();
}

Status ValidateDataset(const Json& ds, const std::string& path) {
  if (!ds.is_object()) return Bad(path, "expected an object");
  DW_RETURN_IF_ERROR(RequireString(ds, "namespace", path));
  if (std::string why = DatasetNamespaceProblem(ds["namespace"].get_ref<const std::string&>()); !why.empty())
    return Bad(path + ".namespace", why);
  DW_RETURN_IF_ERROR(RequireString(ds, "name", path));
  DW_RETURN_IF_ERROR(OptionalObject(ds, "facets", path));
  const Json& facets = Member(ds, "facets");
  if (!facets.is_object()) return Status::Ok();
  const std::string fp = path + ".facets";
  if (auto s = facets.find("schema"); s != facets.end()) {
    if (!s->is_object()) return Bad(fp + ".schema", "expected an object");
    if (auto f = s->find("fields"); f != s->end()) {
      if (!f->is_array()) return Bad(fp + ".schema.fields", "expected an array");
      for (size_t i = 0; i < f->size(); ++i) {
        const std::string p = fp + ".schema.fields[" + std::to_string(i) + "]";
        if (!(*f)[i].is_object()) return Bad(p, "expected an object");
        DW_RETURN_IF_ERROR(RequireString((*f)[i], "name", p));
      }
    }
  }
  if (auto s = facets.find("symlinks"); s != facets.end()) {
    if (!s->is_object()) return Bad(fp + ".symlinks", "expected an object");
    if (auto ids = s->find("identifiers"); ids != s->end()) {
      if (!ids->is_array()) return Bad(fp + ".symlinks.identifiers", "expected an array");
      for (size_t i = 0; i < ids->size(); ++i) {
        const std::string p = fp + ".symlinks.identifiers[" + std::to_string(i) + "]";
        if (!(*ids)[i].is_object()) return Bad(p, "expected an object");
        DW_RETURN_IF_ERROR(RequireString((*ids)[i], "namespace", p));
        DW_RETURN_IF_ERROR(RequireString((*ids)[i], "name", p));
      }
    }
  }
  if (auto c = facets.find("columnLineage"); c != facets.end()) {
    if (!c->is_object()) return Bad(fp + ".columnLineage", "expected an object");
    auto fields = c->find("fields");
    if (fields == c->end()) return Bad(fp + ".columnLineage.fields", "required");
    if (!fields->is_object()) return Bad(fp + ".columnLineage.fields", "expected an object");
    for (const auto& [out, spec] : fields->items()) {
      const std::string p = fp + ".columnLineage.fields['" + out + "']";
      if (!spec.is_object()) return Bad(p, "expected an object");
      auto in = spec.find("inputFields");
      if (in == spec.end()) return Bad(p + ".inputFields", "required");
      if (!in->is_array()) return Bad(p + ".inputFields", "expected an array");
      for (size_t i = 0; i < in->size(); ++i) {
        const std::string ip = p + ".inputFields[" + std::to_string(i) + "]";
        if (!(*in)[i].is_object()) return Bad(ip, "expected an object");
        DW_RETURN_IF_ERROR(RequireString((*in)[i], "namespace", ip));
        if (std::string why = DatasetNamespaceProblem((*in)[i]["namespace"].get_ref<const std::string&>());
            !why.empty())
          return Bad(ip + ".namespace", why);
        DW_RETURN_IF_ERROR(RequireString((*in)[i], "name", ip));
        DW_RETURN_IF_ERROR(RequireString((*in)[i], "field", ip));
      }
    }
  }
  return Status::Ok();
}

// A string member of obj, or "" when absent or not a string (facets are free-form).
std::string StringMember(const Json& obj, const char* key) {
  const Json& v = Member(obj, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

ResolvedDataset ResolveDataset(const Json& ds, const GraphIndex& index, std::string_view not_this) {
  std::vector<std::string> symlinks;
  const Json& facets = Member(ds, "facets");
  if (facets.is_object())
    if (auto s = facets.find("symlinks"); s != facets.end() && s->is_object())
      for (const Json& ident : Member(*s, "identifiers"))
        symlinks.push_back(ident["namespace"].get<std::string>() + "/" + ident["name"].get<std::string>());
  return ResolveRunEventDataset(ds["namespace"].get_ref<const std::string&>(),
                                ds["name"].get_ref<const std::string&>(), symlinks, index, not_this);
}

std::string JobKind(const Json& job, const Json& run) {
  const Json& jf = Member(job, "facets");
  const Json& rf = Member(run, "facets");
  return RunEventJobKind(StringMember(Member(jf, "jobType"), "integration"),
                         StringMember(Member(rf, "processing_engine"), "name"));
}

OlEventType EventTypeOf(const Json& event) {
  return TellEventType(StringMember(event, "schemaURL"), event.contains("run"), event.contains("job"),
                       event.contains("dataset"));
}

// The asset of dataset `ds` (resolved as `r`), with the schema facet's columns.
AssetFacts DatasetAsset(const Json& ds, ResolvedDataset r) {
  AssetFacts f;
  f.id = std::move(r.id);
  f.aliases = std::move(r.aliases);
  const Json& facets = Member(ds, "facets");
  if (facets.is_object() && facets.contains("schema"))
    if (const Json& fields = Member(facets["schema"], "fields"); fields.is_array() && !fields.empty()) {
      Json cols = Json::array();
      for (const Json& fld : fields) {
        Json c{{"name", fld["name"]}};
        if (fld.contains("type") && fld["type"].is_string()) c["type"] = fld["type"];
        cols.push_back(c);
      }
      f.columns = cols;
    }
  return f;
}

// The columnLineage facet as edge columns, inputs named by asset id (see openlineage_reader.cc).
Json ColumnLineage(const Json& facet, std::map<std::string, std::string>& inputs, const GraphIndex& index,
                   std::string_view job_id) {
  Json cols = Json::array();
  for (const auto& [out, spec] : facet["fields"].items()) {
    Json from = Json::array();
    for (const Json& in : spec["inputFields"]) {
      const std::string& ns = in["namespace"].get_ref<const std::string&>();
      const std::string& name = in["name"].get_ref<const std::string&>();
      auto known = inputs.find(ns + "/" + name);
      if (known == inputs.end())
        known = inputs.emplace(ns + "/" + name, ResolveRunEventDataset(ns, name, {}, index, job_id).id).first;
      from.push_back(Json{{"asset", known->second}, {"column", in["field"]}});
    }
    cols.push_back(Json{{"column", out}, {"from", from}});
  }
  return cols;
}

}  // namespace

Status ValidateRunEvent(const Json& event) {
  if (!event.is_object()) return Bad("$", "a run event is a JSON object");
  if (auto it = event.find("eventTime"); it != event.end()) {
    if (!it->is_string()) return Bad("$.eventTime", "expected an RFC 3339 string");
    auto t = ParseEventTime(it->get<std::string>());
    if (!t.ok()) return Bad("$.eventTime", t.status().message());
  }
  const OlEventType type = EventTypeOf(event);
  if (type == OlEventType::kUnknown) return Bad("$", kUntoldEventType);
  if (auto it = event.find("eventType"); type == OlEventType::kRun && it != event.end() && !it->is_null()) {
    if (!it->is_string() || !IsRunEventType(it->get_ref<const std::string&>()))
      return Bad("$.eventType", "expected one of START, RUNNING, COMPLETE, ABORT, FAIL, OTHER");
  }
  if (type == OlEventType::kDataset) {
    auto ds = event.find("dataset");
    if (ds == event.end()) return Bad("$.dataset", "required");
    return ValidateDataset(*ds, "$.dataset");
  }
  if (type == OlEventType::kRun) {
    auto run = event.find("run");
    if (run == event.end()) return Bad("$.run", "required");
    if (!run->is_object()) return Bad("$.run", "expected an object");
    DW_RETURN_IF_ERROR(RequireString(*run, "runId", "$.run"));
    DW_RETURN_IF_ERROR(OptionalObject(*run, "facets", "$.run"));
  }
  auto job = event.find("job");
  if (job == event.end()) return Bad("$.job", "required");
  if (!job->is_object()) return Bad("$.job", "expected an object");
  DW_RETURN_IF_ERROR(RequireString(*job, "namespace", "$.job"));
  DW_RETURN_IF_ERROR(RequireString(*job, "name", "$.job"));
  DW_RETURN_IF_ERROR(OptionalObject(*job, "facets", "$.job"));
  for (const char* side : {"inputs", "outputs"}) {
    auto it = event.find(side);
    if (it == event.end() || it->is_null()) continue;
    if (!it->is_array()) return Bad(std::string("$.") + side, "expected an array");
    for (size_t i = 0; i < it->size(); ++i)
      DW_RETURN_IF_ERROR(ValidateDataset((*it)[i], std::string("$.") + side + "[" + std::to_string(i) + "]"));
  }
  return Status::Ok();
}

Result<SourceBatch> RunEventBatch(const Json& event, const GraphIndex& index, TimePoint now) {
  DW_RETURN_IF_ERROR(ValidateRunEvent(event));
  const OlEventType type = EventTypeOf(event);
  if (type == OlEventType::kDataset) {
    const Json& ds = event["dataset"];
    ResolvedDataset r = ResolveDataset(ds, index, {});
    if (!IsCanonicalAssetId(r.id))
      return Bad("$.dataset", "'" + ds["name"].get<std::string>() + "' does not make a valid asset id");
    SourceBatch batch;
    batch.origin = Origin::kOpenLineage;
    batch.assets.push_back(DatasetAsset(ds, std::move(r)));
    const std::string id = batch.assets.back().id;
    const Json& facets = Member(ds, "facets");
    if (facets.is_object() && Member(facets, "columnLineage").is_object()) {
      std::map<std::string, std::string> inputs;
      Json cols = ColumnLineage(facets["columnLineage"], inputs, index, id);
      // In the order the facet names them (as the streaming reader does), each once.
      std::vector<std::string> order;
      for (const Json& c : cols)
        for (const Json& f : c["from"]) {
          const std::string& src = f["asset"].get_ref<const std::string&>();
          if (src != id && IsCanonicalAssetId(src) && std::find(order.begin(), order.end(), src) == order.end())
            order.push_back(src);
        }
      for (const std::string& src : order) batch.edges.push_back({src, id, "feeds", cols});
    }
    return batch;
  }
  const Json& job = event["job"];
  const Json& run = Member(event, "run");
  const std::string jns = job["namespace"], jname = job["name"];
  const std::string event_type = StringMember(event, "eventType").empty() ? "OTHER" : StringMember(event, "eventType");
  TimePoint at = now;
  if (event.contains("eventTime")) at = *ParseEventTime(event["eventTime"].get<std::string>());

  const std::string job_alias = jns + "/" + jname;
  auto resolved_job = ResolveRunEventJob(jns, jname, JobKind(job, type == OlEventType::kRun ? run : Json()), index);
  if (!resolved_job.ok()) return resolved_job.status();
  const std::string& job_id = *resolved_job;

  SourceBatch batch;
  batch.origin = Origin::kOpenLineage;
  AssetFacts jf;
  jf.id = job_id;
  if (job_alias != job_id) jf.aliases.push_back(job_alias);
  batch.assets.push_back(jf);

  // Inputs first: column lineage on outputs refers to them by namespace/name.
  std::map<std::string, std::string> input_ids;
  for (const char* side : {"inputs", "outputs"}) {
    const Json& list = Member(event, side);
    if (!list.is_array()) continue;
    for (size_t i = 0; i < list.size(); ++i) {
      const Json& ds = list[i];
      ResolvedDataset r = ResolveDataset(ds, index, job_id);
      if (!IsCanonicalAssetId(r.id))
        return Bad(std::string("$.") + side + "[" + std::to_string(i) + "]",
                   "'" + ds["name"].get<std::string>() + "' does not make a valid asset id");
      const std::string id = r.id;
      batch.assets.push_back(DatasetAsset(ds, std::move(r)));
      if (std::string(side) == "inputs") {
        input_ids[ds["namespace"].get<std::string>() + "/" + ds["name"].get<std::string>()] = id;
        batch.edges.push_back({id, job_id, "feeds", nullptr});
        continue;
      }
      EdgeFacts e{job_id, id, "feeds", nullptr};
      const Json& facets = Member(ds, "facets");
      if (facets.is_object() && facets.contains("columnLineage"))
        e.columns = ColumnLineage(facets["columnLineage"], input_ids, index, job_id);
      batch.edges.push_back(e);
    }
  }
  if (type == OlEventType::kJob) {
    if (Member(event, "inputs").is_array() || Member(event, "outputs").is_array()) batch.stale_scope = job_id;
    return batch;
  }
  if (event_type == "COMPLETE") batch.stale_scope = job_id;
  if (event_type == "COMPLETE" || event_type == "FAIL" || event_type == "ABORT") {
    JobRun r;
    r.job = job_id;
    r.run_id = run["runId"];
    r.event_type = event_type;
    r.at = at;
    const Json& rf = Member(run, "facets");
    r.message = StringMember(Member(rf, "errorMessage"), "message");
    batch.runs.push_back(r);
  }
  return batch;
}

SourceBatch MergeBatches(std::vector<SourceBatch> batches) {
  SourceBatch out;
  out.origin = Origin::kOpenLineage;
  for (SourceBatch& b : batches) {
    for (auto& a : b.assets) out.assets.push_back(std::move(a));
    for (auto& e : b.edges) out.edges.push_back(std::move(e));
    for (auto& r : b.runs) out.runs.push_back(std::move(r));
  }
  return out;
}

}  // namespace dw::graph
