#include "graph/openlineage_names.h"

#include <cctype>

#include "base/identifiers.h"
#include "graph/name_resolver.h"

namespace dw::graph {
namespace {

// The scheme of an OpenLineage namespace ("kafka" of "kafka://host:9092") and what follows it.
std::pair<std::string_view, std::string_view> SplitNamespace(std::string_view ns) {
  size_t p = ns.find("://");
  if (p == std::string_view::npos) return {"", ns};
  return {ns.substr(0, p), ns.substr(p + 3)};
}

std::string_view DatasetKind(std::string_view scheme) {
  if (scheme == "kafka") return "kafka";
  if (scheme == "pubsub") return "pubsub";
  return "table";
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

bool IsRunEventType(std::string_view t) {
  return t == "START" || t == "RUNNING" || t == "COMPLETE" || t == "ABORT" || t == "FAIL" || t == "OTHER";
}

ResolvedDataset ResolveRunEventDataset(const std::string& ns, const std::string& name,
                                       const std::vector<std::string>& symlinks, const GraphIndex& index) {
  // Every event names its datasets, so this path avoids temporaries where it can.
  std::vector<std::string> names;
  names.reserve(1 + symlinks.size());
  names.emplace_back().reserve(ns.size() + 1 + name.size());
  names[0].append(ns).append("/").append(name);
  for (const std::string& s : symlinks) names.push_back(s);
  auto [scheme, authority] = SplitNamespace(ns);
  std::string_view kind = DatasetKind(scheme);
  std::string instance = SanitizeInstance(authority.substr(0, authority.find('/')));
  std::string fallback;
  std::string_view short_name;
  std::string sanitized;
  if (kind == "table") {
    // Keep schema.table: the last two dot-separated parts of db.schema.table.
    std::string_view n = name;
    size_t last = n.rfind('.');
    size_t prev = last == std::string_view::npos || last == 0 ? std::string_view::npos : n.rfind('.', last - 1);
    if (prev != std::string_view::npos) n = n.substr(prev + 1);
    fallback.reserve(8 + instance.size() + 1 + n.size());
    fallback.append("table://").append(instance).append("/");
    for (char c : n) {
      bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '-' || c == '$' || c == '.';
      fallback += ok ? c : '_';
    }
    short_name = ShortName(fallback);
  } else {
    sanitized = SanitizeName(name);
    fallback.reserve(kind.size() + 3 + instance.size() + 1 + sanitized.size());
    fallback.append(kind).append("://").append(instance).append("/").append(sanitized);
    short_name = sanitized;
  }
  ResolvedDataset r;
  r.id = kind == "table" ? ResolveTable(index, names, short_name, fallback)
                         : ResolveName(index, names, kind, short_name, fallback);
  for (std::string& n : names)
    if (n != r.id) r.aliases.push_back(std::move(n));
  return r;
}

std::string RunEventJobKind(std::string_view integration, std::string_view engine) {
  std::string i = Lower(integration.empty() ? engine : integration);
  if (i == "flink" || i == "dbt" || i == "kestra") return i;
  return "";
}

Result<std::string> ResolveRunEventJob(const std::string& jns, const std::string& jname,
                                       const std::string& kind, const GraphIndex& index) {
  // A recorded alias or a unique job of the same name (flink, kestra, dbt), else an id from its
  // integration.
  std::string job_alias = jns + "/" + jname;
  std::string job_id;
  if (index.Find(job_alias) != kNone) job_id = job_alias;
  if (AssetIndex aliased = job_id.empty() ? index.FindAlias(job_alias) : kNone; aliased != kNone)
    job_id = index.id(aliased);
  if (job_id.empty()) {
    static const char* const kAll[] = {"flink", "kestra", "dbt", "job"};
    size_t found = 0;
    AssetIndex only = kNone;
    const std::string short_name = SanitizeName(jname);
    for (const char* k : kAll) {
      if (!kind.empty() && kind != k) continue;
      AssetIndex first = kNone;
      size_t n = index.CountByShortName(static_cast<uint8_t>(KindIndex(k)), short_name, &first);
      if (n > 0 && found == 0) only = first;
      found += n;
    }
    if (found == 1) job_id = index.id(only);
  }
  if (job_id.empty()) {
    // A job of an integration we have no kind for (Airflow, Spark, Trino, a custom client) is
    // still lineage: a generic job, job://<namespace>/<name>, as Marquez accepts every valid event.
    if (kind.empty()) {
      job_id = "job://" + SanitizeInstance(jns) + "/" + SanitizeName(jname);
      if (!IsCanonicalAssetId(job_id))
        return InvalidArgument("$.job.name: '" + job_alias + "' does not make a valid asset id (" +
                               job_id + ")");
      return job_id;
    }
    std::string name = SanitizeName(jname);
    if (kind == "kestra" && name.find('.') == std::string::npos) name = SanitizeInstance(jns) + "." + name;
    job_id = kind + "://" + SanitizeInstance(jns) + "/" + name;
  }
  if (!IsCanonicalAssetId(job_id))
    return InvalidArgument("$.job.name: '" + job_alias + "' does not make a valid asset id (" + job_id + ")");
  return job_id;
}

}  // namespace dw::graph
