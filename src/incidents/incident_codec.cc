#include "incidents/incident_codec.h"

#include <set>

#include "base/rfc3339.h"

namespace dw::incidents {

namespace {

Json OptTime(const std::optional<TimePoint>& t) { return t ? Json(FormatRfc3339(*t)) : Json(nullptr); }
Json OptNumber(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

Json SignalRefJson(const SignalRef& s) {
  return {{"kind", SignalKindName(s.kind)}, {"key", s.key},          {"asset", s.asset_id},
          {"shape", SignalShapeName(s.shape)}, {"first_at", FormatRfc3339(s.first_at)},
          {"last_at", FormatRfc3339(s.last_at)}, {"count", s.count},   {"bad_now", s.bad_now},
          {"value", s.value},                 {"expected", OptNumber(s.expected)},
          {"summary", s.summary},             {"evidence", s.evidence}};
}

Json TransitionJson(const Transition& t) {
  return {{"from", t.from}, {"to", t.to}, {"actor", t.actor}, {"at", FormatRfc3339(t.at)}, {"reason", t.reason}};
}

Json SeverityJson(const Severity& s) {
  return {{"level", s.level},      {"name", "SEV" + std::to_string(s.level)}, {"reason", s.reason},
          {"consumer", s.consumer}, {"acts_at", OptTime(s.acts_at)},          {"computed_at", FormatRfc3339(s.computed_at)}};
}

// Strict readers: each throws a std::runtime_error naming the field; caught in FromRecord.
struct Reader {
  const Json& j;
  std::string where;
  const Json& At(const char* key) const {
    if (!j.is_object() || !j.contains(key)) throw std::runtime_error(where + "." + key + " is missing");
    return j[key];
  }
  std::string Str(const char* key) const {
    const Json& v = At(key);
    if (!v.is_string()) throw std::runtime_error(where + "." + key + " is not a string");
    return v.get<std::string>();
  }
  TimePoint Time(const char* key) const {
    auto t = ParseRfc3339(Str(key));
    if (!t.ok()) throw std::runtime_error(where + "." + key + ": " + t.status().message());
    return *t;
  }
  std::optional<TimePoint> OptTimeAt(const char* key) const {
    if (!j.contains(key) || j[key].is_null()) return std::nullopt;
    return Time(key);
  }
  double Num(const char* key) const {
    const Json& v = At(key);
    if (!v.is_number()) throw std::runtime_error(where + "." + key + " is not a number");
    return v.get<double>();
  }
  std::optional<double> OptNum(const char* key) const {
    if (!j.contains(key) || j[key].is_null()) return std::nullopt;
    return Num(key);
  }
  bool Bool(const char* key) const {
    const Json& v = At(key);
    if (!v.is_boolean()) throw std::runtime_error(where + "." + key + " is not a boolean");
    return v.get<bool>();
  }
  const Json& Array(const char* key) const {
    const Json& v = At(key);
    if (!v.is_array()) throw std::runtime_error(where + "." + key + " is not an array");
    return v;
  }
};

SignalKind ParseKind(const std::string& s, const std::string& where) {
  for (SignalKind k : {SignalKind::kMetric, SignalKind::kCheck, SignalKind::kChange})
    if (s == SignalKindName(k)) return k;
  throw std::runtime_error(where + ".kind is not a signal kind: " + s);
}

SignalShape ParseShape(const std::string& s, const std::string& where) {
  for (SignalShape k : {SignalShape::kUnknown, SignalShape::kLevelDrop, SignalShape::kLevelRise, SignalShape::kDoubling,
                        SignalShape::kRepeatsEarlier, SignalShape::kNullRateJump, SignalShape::kMismatchesFound,
                        SignalShape::kStateDropped})
    if (s == SignalShapeName(k)) return k;
  throw std::runtime_error(where + ".shape is not a signal shape: " + s);
}

}  // namespace

bool IsActive(IncidentStatus status) {
  return status == IncidentStatus::kOpen || status == IncidentStatus::kAcknowledged ||
         status == IncidentStatus::kMitigated;
}

Json IncidentToJson(const Incident& i) {
  Json signals = Json::array(), transitions = Json::array();
  for (const SignalRef& s : i.signals) signals.push_back(SignalRefJson(s));
  for (const Transition& t : i.transitions) transitions.push_back(TransitionJson(t));
  return {{"id", i.id},
          {"status", IncidentStatusName(i.status)},
          {"close_reason", CloseReasonName(i.close_reason)},
          {"title", i.title},
          {"root_asset", i.root_asset},
          {"damaged_assets", i.damaged_assets},
          {"domain", i.domain},
          {"owner", i.owner},
          {"opened_at", FormatRfc3339(i.opened_at)},
          {"updated_at", FormatRfc3339(i.updated_at)},
          {"first_bad_at", FormatRfc3339(i.first_bad_at)},
          {"closed_at", OptTime(i.closed_at)},
          {"severity", SeverityJson(i.severity)},
          {"signals", signals},
          {"transitions", transitions},
          {"cause_kind", i.cause_kind},
          {"cause_asset", i.cause_asset},
          {"recurrence_of", i.recurrence_of ? Json(*i.recurrence_of) : Json(nullptr)},
          {"notes", i.notes}};
}

store::IncidentRecord ToRecord(const Incident& i) {
  store::IncidentRecord r;
  r.id = i.id;
  r.status = IncidentStatusName(i.status);
  r.title = i.title;
  r.asset_id = i.root_asset;
  r.opened_at = i.opened_at;
  r.updated_at = i.updated_at;
  r.closed_at = i.closed_at;
  r.body = IncidentToJson(i);
  std::set<std::string> metrics;
  for (const SignalRef& s : i.signals)
    if (s.kind == SignalKind::kMetric && s.key.rfind("metric:", 0) == 0) metrics.insert(s.key.substr(7));
  r.body["metrics"] = Json(std::vector<std::string>(metrics.begin(), metrics.end()));
  return r;
}

Result<Incident> FromRecord(const store::IncidentRecord& record) {
  try {
    Reader b{record.body, "incident " + record.id};
    Incident i;
    i.id = record.id;
    auto status = ParseIncidentStatus(b.Str("status"));
    if (!status) throw std::runtime_error(b.where + ".status is not a status: " + b.Str("status"));
    i.status = *status;
    std::string close = b.Str("close_reason");
    if (!close.empty()) {
      auto c = ParseCloseReason(close);
      if (!c) throw std::runtime_error(b.where + ".close_reason is not expected or false_positive");
      i.close_reason = *c;
    }
    i.title = b.Str("title");
    i.root_asset = b.Str("root_asset");
    for (const Json& a : b.Array("damaged_assets")) {
      if (!a.is_string()) throw std::runtime_error(b.where + ".damaged_assets holds a non-string");
      i.damaged_assets.push_back(a.get<std::string>());
    }
    i.domain = b.Str("domain");
    i.owner = b.Str("owner");
    i.opened_at = b.Time("opened_at");
    i.updated_at = b.Time("updated_at");
    i.first_bad_at = b.Time("first_bad_at");
    i.closed_at = b.OptTimeAt("closed_at");
    Reader sev{b.At("severity"), b.where + ".severity"};
    i.severity.level = static_cast<int>(sev.Num("level"));
    i.severity.reason = sev.Str("reason");
    i.severity.consumer = sev.Str("consumer");
    i.severity.acts_at = sev.OptTimeAt("acts_at");
    i.severity.computed_at = sev.Time("computed_at");
    size_t n = 0;
    for (const Json& sj : b.Array("signals")) {
      Reader s{sj, b.where + ".signals[" + std::to_string(n++) + "]"};
      SignalRef ref;
      ref.kind = ParseKind(s.Str("kind"), s.where);
      ref.key = s.Str("key");
      ref.asset_id = s.Str("asset");
      ref.shape = ParseShape(s.Str("shape"), s.where);
      ref.first_at = s.Time("first_at");
      ref.last_at = s.Time("last_at");
      ref.count = static_cast<int64_t>(s.Num("count"));
      ref.bad_now = s.Bool("bad_now");
      ref.value = s.Num("value");
      ref.expected = s.OptNum("expected");
      ref.summary = s.Str("summary");
      ref.evidence = s.At("evidence");
      i.signals.push_back(std::move(ref));
    }
    n = 0;
    for (const Json& tj : b.Array("transitions")) {
      Reader t{tj, b.where + ".transitions[" + std::to_string(n++) + "]"};
      i.transitions.push_back({t.Str("from"), t.Str("to"), t.Str("actor"), t.Time("at"), t.Str("reason")});
    }
    i.cause_kind = b.Str("cause_kind");
    i.cause_asset = b.Str("cause_asset");
    if (b.j.contains("recurrence_of") && !b.j["recurrence_of"].is_null()) i.recurrence_of = b.Str("recurrence_of");
    for (const Json& note : b.Array("notes"))
      if (note.is_string()) i.notes.push_back(note.get<std::string>());
    return i;
  } catch (const std::exception& e) {
    return DataLoss(std::string("stored ") + e.what());
  }
}

}  // namespace dw::incidents
