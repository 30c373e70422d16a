#include "config/workspace_schema.h"

namespace dw::config {
namespace {

// Small constructors so the table below reads like the documentation.
ValueSchema Of(ValueType t) {
  ValueSchema s;
  s.type = t;
  return s;
}
ValueSchema Str() { return Of(ValueType::kString); }
ValueSchema Secret(SecretKind kind = SecretKind::kWhole) {
  ValueSchema s = Str();
  s.secret = kind;
  return s;
}
ValueSchema Url() {
  ValueSchema s = Of(ValueType::kUrl);
  s.secret = SecretKind::kEmbedded;  // https://user:password@host
  return s;
}
ValueSchema Bool() { return Of(ValueType::kBool); }
ValueSchema Int(std::optional<double> minimum = std::nullopt) {
  ValueSchema s = Of(ValueType::kInt);
  s.minimum = minimum;
  return s;
}
ValueSchema Num(std::optional<double> minimum = std::nullopt) {
  ValueSchema s = Of(ValueType::kNumber);
  s.minimum = minimum;
  return s;
}
ValueSchema Enum(std::vector<std::string> choices) {
  ValueSchema s = Of(ValueType::kEnum);
  s.choices = std::move(choices);
  return s;
}
ValueSchema List(ValueSchema element, int exact_items = -1) {
  ValueSchema s = Of(ValueType::kList);
  s.element = std::make_shared<const ValueSchema>(std::move(element));
  s.exact_items = exact_items;
  return s;
}
ValueSchema Map(ValueSchema element, bool name_keys = false) {
  ValueSchema s = Of(ValueType::kMap);
  s.element = std::make_shared<const ValueSchema>(std::move(element));
  s.name_keys = name_keys;
  return s;
}
ValueSchema Obj(std::vector<Field> fields) {
  ValueSchema s = Of(ValueType::kObject);
  s.fields = std::move(fields);
  return s;
}
Field Req(std::string key, ValueSchema v) { return Field{std::move(key), std::move(v), true}; }
Field Opt(std::string key, ValueSchema v) { return Field{std::move(key), std::move(v), false}; }

// `auto_monitor:` true, false, or its settings (docs/auto-monitors.md).
ValueSchema AutoMonitorSchema() {
  ValueSchema s = Obj({
      Opt("enabled", Bool()),
      Opt("exclude", List(Str())),
      Opt("every", Of(ValueType::kDuration)),
      Opt("learning", Of(ValueType::kDuration)),
  });
  s.or_bool = true;
  return s;
}

ValueSchema MinMax() {
  ValueSchema s = Obj({Opt("min", Num()), Opt("max", Num())});
  s.at_least_one_of = {{"min", "max"}};
  return s;
}

ValueSchema CheckSchema() {
  ValueSchema custom = Obj({
      Req("name", Str()),
      Req("sql", Str()),
      Opt("must_be", Num()),
      Opt("between", List(Num(), 2)),
      Opt("level", Enum({"warn", "fail"})),
      Opt("failing_rows", Str()),
  });
  custom.exactly_one_of = {{"must_be", "between"}};
  ValueSchema row_count_change =
      Obj({Opt("max_drop_pct", Num(0)), Opt("max_growth_pct", Num(0))});
  row_count_change.at_least_one_of = {{"max_drop_pct", "max_growth_pct"}};
  ValueSchema volume =
      Obj({Opt("min_rows", Int(0)), Opt("max_rows", Int(0)), Opt("window", Of(ValueType::kDuration))});
  volume.at_least_one_of = {{"min_rows", "max_rows"}};
  return Obj({
      Req("table", Str()),
      Opt("time_column", Str()),
      Opt("not_null", List(Str())),
      Opt("unique", List(Of(ValueType::kColumnSet))),
      Opt("freshness", Obj({Req("max_age", Of(ValueType::kDuration))})),
      Opt("volume", volume),
      Opt("accepted_values", Map(List(Of(ValueType::kScalar)))),
      Opt("range", Map(MinMax())),
      Opt("schema", Bool()),
      Opt("row_count_change", row_count_change),
      Opt("custom", List(custom)),
      Opt("pii", List(Str())),
      Opt("tune", Map(Obj({Opt("level", Enum({"warn", "fail"})), Opt("max_fraction", Num(0)),
                           Opt("mostly", Num(0))}))),
  });
}

ValueSchema MonitorSchema() {
  ValueSchema m = Obj({
      Req("name", Str()),
      Req("warehouse", Str()),
      Opt("sql", Str()),
      Opt("series_sql", Str()),
      Opt("every", Of(ValueType::kDuration)),
      Opt("seasonality",
          Enum({"none", "auto", "hour_of_day", "day_of_week", "hour_of_week", "day_of_month"})),
      Opt("direction", Enum({"both", "drop", "spike"})),
      Opt("sensitivity", Num(0)),
      Opt("min_abs_change", Num(0)),
      Opt("min_rel_change", Num(0)),
      Opt("training_window", Of(ValueType::kDuration)),
      Opt("expected", MinMax()),
      Opt("asset", Of(ValueType::kAssetId)),
      Opt("retention", Of(ValueType::kDuration)),
  });
  m.at_least_one_of = {{"sql", "series_sql"}};
  return m;
}

// notify: one channel per service (the key is the channel's name and type), the incident page
// link and the routes. A webhook URL is a secret as a whole: it carries the credential.
ValueSchema NotifySchema() {
  ValueSchema slack = Obj({
      Opt("webhook", Secret()),
      Opt("token", Secret()),
      Opt("channel", Str()),
      Opt("api_url", Url()),
  });
  slack.at_least_one_of = {{"webhook", "token"}};
  ValueSchema email = Obj({
      Req("smtp", Url()),
      Req("from", Str()),
      Opt("to", List(Str())),
      Opt("username", Str()),
      Opt("password", Secret()),
  });
  email.fields[0].value.type = ValueType::kString;  // smtp:// or smtps://, checked at send time
  ValueSchema route = Obj({
      Req("channels", List(Enum({"slack", "teams", "opsgenie", "pagerduty", "email", "console"}))),
      Opt("domains", List(Str())),
      Opt("severities", List(Enum({"SEV1", "SEV2", "SEV3", "SEV4"}))),
      Opt("events", List(Enum({"open", "severity_raised", "approval_requested", "approved",
                               "escalated", "verified", "resolved", "attention_requested"}))),
  });
  return Obj({
      Opt("link", Str()),
      Opt("slack", slack),
      Opt("teams", Obj({Req("webhook", Secret())})),
      Opt("opsgenie", Obj({Req("api_key", Secret()), Opt("url", Url())})),
      Opt("pagerduty", Obj({Req("routing_key", Secret()), Opt("url", Url())})),
      Opt("email", email),
      Opt("console", Obj({})),
      Opt("routes", List(route)),
  });
}

ValueSchema BuildWorkspaceSchema() {
  ValueSchema warehouse = Obj({
      Req("type", Enum({"sqlite", "postgres", "bigquery", "snowflake"})),
      Opt("path", Str()),
      Opt("dsn", Secret(SecretKind::kConnection)),
      Opt("project", Str()),
      Opt("location", Str()),
      Opt("credentials", Str()),
      Opt("api_url", Url()),
      Opt("token_url", Url()),
      Opt("account", Str()),
      Opt("user", Str()),
      Opt("private_key", Str()),
      Opt("database", Str()),
      Opt("schema", Str()),
      Opt("warehouse", Str()),
      Opt("role", Str()),
      Opt("max_scan_rows", Int(0)),
      Opt("max_scan_bytes", Int(0)),
      Opt("max_bytes_billed", Int(10485760)),
      Opt("query_timeout", Of(ValueType::kDuration)),
  });
  ValueSchema platform = Obj({
      Req("type", Enum({"flink", "kestra", "kafka-connect", "schema-registry"})),
      Req("url", Url()),
      Opt("tenant", Str()),
      Opt("username", Str()),
      Opt("password", Secret()),
      Opt("token", Secret()),
      Opt("manifests", Str()),
      Opt("timeout", Of(ValueType::kDuration)),
  });
  ValueSchema domain = Obj({
      Opt("autonomy", Enum({"L0", "L1", "L2", "L3", "L4"})),
      Opt("owners", List(Str())),
      Opt("approvers", List(Str())),
      Opt("escalate_to", List(Str())),
      Opt("approval_ttl", Of(ValueType::kDuration)),
  });
  ValueSchema person = Obj({
      Opt("keys", List(Str())),
  });
  ValueSchema asset = Obj({
      Req("id", Of(ValueType::kAssetId)),
      Opt("domain", Str()),
      Opt("owner", Str()),
      Opt("reads", List(Of(ValueType::kAssetId))),
      Opt("writes", List(Of(ValueType::kAssetId))),
      Opt("schedule", Of(ValueType::kCron)),
      Opt("customer_facing", Bool()),
      Opt("tags", List(Str())),
      Opt("impact_sql", Str()),
      Opt("notes", Str()),
  });
  ValueSchema lineage = Obj({
      Opt("dbt_manifest", Str()),
      Opt("openlineage", Bool()),
      Opt("kestra_flows", Str()),
      Opt("dbt_tests", Bool()),
  });
  ValueSchema notify = NotifySchema();
  return Obj({
      Req("version", Int()),
      Req("name", Str()),
      Opt("timezone", Of(ValueType::kTimeZone)),
      Opt("state", Secret(SecretKind::kEmbedded)),  // may be a postgresql:// URL with a password
      Opt("warehouses", Map(warehouse, /*name_keys=*/true)),
      Opt("platforms", Map(platform, /*name_keys=*/true)),
      Opt("domains", Map(domain, /*name_keys=*/true)),
      Opt("people", Map(person)),
      Opt("assets", List(asset)),
      Opt("lineage", lineage),
      Opt("checks", List(CheckSchema())),
      Opt("monitors", List(MonitorSchema())),
      Opt("metrics", Obj({Opt("retention", Of(ValueType::kDuration))})),
      Opt("incidents", Obj({Opt("group_window", Of(ValueType::kDuration))})),
      Opt("changes", Obj({Opt("initial_lookback", Of(ValueType::kDuration))})),
      Opt("watch", Obj({Opt("lease_history", Of(ValueType::kDuration))})),
      Opt("auto_monitor", AutoMonitorSchema()),
      Opt("notify", notify),
      Opt("desk", Obj({Opt("url", Url()), Opt("trusted_proxies", List(Str()))})),
      Opt("mcp", Obj({Opt("max_scan_bytes", Int(0))})),
  });
}

}  // namespace

const ValueSchema& WorkspaceSchema() {
  static const ValueSchema schema = BuildWorkspaceSchema();
  return schema;
}

std::string DescribeType(const ValueSchema& schema) {
  switch (schema.type) {
    case ValueType::kString: return "a string";
    case ValueType::kBool: return "true or false";
    case ValueType::kInt: return "a whole number";
    case ValueType::kNumber: return "a number";
    case ValueType::kScalar: return "a value (string, number or true/false)";
    case ValueType::kDuration: return "a duration such as 30m";
    case ValueType::kCron: return "a cron schedule such as \"0 22 * * *\"";
    case ValueType::kUrl: return "an http:// or https:// URL";
    case ValueType::kAssetId: return "an asset id such as table://main/loyalty.member_balances";
    case ValueType::kTimeZone: return "an IANA time zone such as Europe/Berlin";
    case ValueType::kEnum: {
      std::string out = "one of ";
      for (size_t i = 0; i < schema.choices.size(); ++i) out += (i ? ", " : "") + schema.choices[i];
      return out;
    }
    case ValueType::kList: return "a list";
    case ValueType::kMap:
    case ValueType::kObject: return schema.or_bool ? "true, false or a mapping (key: value)" : "a mapping (key: value)";
    case ValueType::kColumnSet: return "a column name or a list of column names";
  }
  return "a value";
}

}  // namespace dw::config
