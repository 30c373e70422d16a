#include "graph/openlineage_names.h"

#include <cctype>

#include "base/identifiers.h"
#include "base/rfc3339.h"
#include "graph/name_resolver.h"
#include "graph/openlineage_stitch.h"

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

// The dbt node a dbt-ol job runs, dbt://<package>/<name>, or "". A unique id
// ([prefix.]model.<package>.<name>[.v2], seed., snapshot.) names it whatever the graph holds; the
// older <database>.<schema>.<package>.<name> only when the graph has that model (the dots of a
// generic name prove nothing). Trailing ".build.run"-style step names are not part of the node.
std::string DbtNodeOfJob(std::string_view name, const GraphIndex& index) {
  std::vector<std::string_view> parts;
  for (size_t p = 0;;) {
    size_t dot = name.find('.', p);
    parts.push_back(name.substr(p, dot == std::string_view::npos ? std::string_view::npos : dot - p));
    if (dot == std::string_view::npos) break;
    p = dot + 1;
  }
  auto is_step = [](std::string_view s) {
    return s == "build" || s == "run" || s == "test" || s == "snapshot" || s == "seed";
  };
  while (parts.size() > 3 && is_step(parts.back())) parts.pop_back();
  for (size_t i = 0; i + 2 < parts.size(); ++i) {
    if (parts[i] != "model" && parts[i] != "seed" && parts[i] != "snapshot") continue;
    size_t rest = parts.size() - i - 1;
    bool versioned = rest == 3 && parts.back().size() > 1 && parts.back()[0] == 'v' &&
                     parts.back().find_first_not_of("0123456789", 1) == std::string_view::npos;
    if (rest == 2 || versioned)
      return "dbt://" + SanitizeInstance(parts[i + 1]) + "/" + SanitizeName(parts[i + 2]);
  }
  if (parts.size() >= 2) {
    std::string id = "dbt://" + SanitizeInstance(parts[parts.size() - 2]) + "/" + SanitizeName(parts.back());
    if (index.Find(id) != kNone) return id;
  }
  return "";
}

// True when `asset` already answers for a job or dataset of another OpenLineage namespace: it
// carries the alias "<other namespace>/<name>". A short-name match onto it would merge two jobs
// (staging/orders_load, prod/orders_load) or two datasets (the same topic on two clusters) that
// only share a name. A job's namespace is a plain name; a dataset's may be a URI.
bool NamedByAnotherNamespace(const GraphIndex& index, AssetIndex asset, std::string_view ns, std::string_view name,
                             bool dataset) {
  if (asset == kNone) return false;
  for (const std::string& alias : index.details(asset).aliases) {
    if (alias.size() <= name.size() + 1 || !alias.ends_with(name)) continue;
    std::string_view prefix(alias.data(), alias.size() - name.size() - 1);
    if (alias[prefix.size()] != '/' || prefix.empty()) continue;
    if (!dataset && prefix.find("://") != std::string_view::npos) continue;
    if (prefix != ns) return true;
  }
  return false;
}

// True when one of `names` is a recorded id or alias (the resolver matched it by name).
bool KnownByName(const GraphIndex& index, const std::vector<std::string>& names) {
  for (const std::string& n : names)
    if (index.Find(n) != kNone || index.FindAlias(n) != kNone) return true;
  return false;
}

// The id of a dataset the naming spec placed at `stitched` in a workspace warehouse: that table
// when the graph has it (also as the engine folds unquoted names to lower case), else `stitched`,
// new. Never a table of the same short name elsewhere, nor one an earlier event's alias pointed
// to: the namespace says which database it is in, and its aliases move to it.
std::string PlacedTableId(const GraphIndex& index, const std::string& stitched) {
  if (index.Find(stitched) != kNone) return stitched;
  if (std::string lower = AsciiLower(stitched); index.Find(lower) != kNone) return lower;
  return stitched;
}

}  // namespace

std::string DatasetNamespaceProblem(std::string_view ns) {
  for (char c : ns)
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f)
      return "'" + std::string(ns.substr(0, 80)) + "' holds whitespace or a control character; a dataset namespace "
             "is scheme://authority (postgres://db:5432) or a plain name";
  const size_t sep = ns.find("://");
  if (sep == std::string_view::npos) return "";
  const std::string_view scheme = ns.substr(0, sep), authority = ns.substr(sep + 3);
  bool scheme_ok = !scheme.empty() && std::isalpha(static_cast<unsigned char>(scheme[0]));
  for (char c : scheme)
    scheme_ok = scheme_ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.');
  if (!scheme_ok)
    return "'" + std::string(ns.substr(0, 80)) + "': the scheme before :// must start with a letter and hold only "
           "letters, digits, '+', '-' and '.'";
  if ((authority.empty() || authority.front() == '/') && scheme != "file")
    return "'" + std::string(ns.substr(0, 80)) + "' names no datasource after ://; write " + std::string(scheme) +
           "://host[:port] (the OpenLineage naming spec)";
  return "";
}

bool IsRunEventType(std::string_view t) {
  return t == "START" || t == "RUNNING" || t == "COMPLETE" || t == "ABORT" || t == "FAIL" || t == "OTHER";
}

OlEventType TellEventType(std::string_view schema_url, bool has_run, bool has_job, bool has_dataset) {
  if (size_t hash = schema_url.rfind('#'); hash != std::string_view::npos) {
    std::string_view fragment = schema_url.substr(hash + 1);
    std::string_view last = fragment.substr(fragment.rfind('/') + 1);
    if (last == "RunEvent") return OlEventType::kRun;
    if (last == "JobEvent") return OlEventType::kJob;
    if (last == "DatasetEvent") return OlEventType::kDataset;
  }
  if (has_run) return OlEventType::kRun;
  if (has_job && !has_dataset) return OlEventType::kJob;
  if (has_dataset && !has_job) return OlEventType::kDataset;
  return OlEventType::kUnknown;
}

Result<TimePoint> ParseEventTime(std::string_view text) {
  auto t = ParseRfc3339(text);
  if (t.ok() || text.size() < 19) return t;
  // An offset is Z or +hh:mm/-hh:mm after the time; the date's own '-' come before position 10.
  if (text.substr(10).find_first_of("Zz+-") != std::string_view::npos) return t;
  auto utc = ParseRfc3339(std::string(text) + "Z");
  if (utc.ok()) return utc;
  return t;
}

ResolvedDataset ResolveRunEventDataset(const std::string& ns, const std::string& name,
                                       const std::vector<std::string>& symlinks, const GraphIndex& index,
                                       std::string_view not_this) {
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
    fallback.append("table://").append(instance).append("/").append(SanitizeTablePart(n));
    short_name = ShortName(fallback);
    // Named by the naming spec in a system the workspace has warehouses of: that decides.
    if (!index.warehouses().empty())
      if (auto placed = ParseOlWarehouseDataset(ns, name))
        if (std::string stitched = StitchOlDataset(*placed, index.warehouses()); !stitched.empty()) {
          ResolvedDataset r;
          r.id = PlacedTableId(index, stitched);
          for (std::string& n2 : names)
            if (n2 != r.id) r.aliases.push_back(std::move(n2));
          return r;
        }
  } else {
    sanitized = SanitizeName(name);
    fallback.reserve(kind.size() + 3 + instance.size() + 1 + sanitized.size());
    fallback.append(kind).append("://").append(instance).append("/").append(sanitized);
    short_name = sanitized;
  }
  ResolvedDataset r;
  r.id = kind == "table" ? ResolveTable(index, names, short_name, fallback)
                         : ResolveName(index, names, kind, short_name, fallback);
  // A match by short name only onto another namespace's dataset is two datasets, not one.
  if (r.id != fallback && NamedByAnotherNamespace(index, index.Find(r.id), ns, name, true) && !KnownByName(index, names))
    r.id = fallback;
  if (!not_this.empty() && r.id == not_this) r.id = std::move(fallback);
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
  if (job_id.empty() && kind == "dbt") job_id = DbtNodeOfJob(jname, index);
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
    if (found == 1 && !NamedByAnotherNamespace(index, only, jns, jname, false)) job_id = index.id(only);
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
