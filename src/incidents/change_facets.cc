#include "incidents/change_facets.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "observe/changes/change_kinds.h"

namespace dw::incidents {

namespace {

namespace k = observe::changes;

constexpr size_t kMinIdLength = 8;  // shorter ids could match a statement's text by chance

std::string FacetField(const Json& ev, const char* key) {
  auto it = ev.is_object() ? ev.find(key) : ev.end();
  if (it == ev.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<int64_t>());
  return "";
}

struct FacetSets {
  std::vector<size_t> parent;
  explicit FacetSets(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  size_t Find(size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  }
  void Join(size_t a, size_t b) {
    a = Find(a), b = Find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

bool IsFacetRun(const std::string& kind) { return kind == k::kExecution || kind == k::kExecutionReplay; }

}  // namespace

std::string DbtInvocationId(const std::string& text) {
  const std::string key = "\"invocation_id\"";
  size_t at = text.find(key);
  if (at == std::string::npos) return "";
  size_t i = at + key.size();
  while (i < text.size() && (text[i] == ' ' || text[i] == ':')) ++i;
  if (i >= text.size() || text[i] != '"') return "";
  size_t end = text.find('"', i + 1);
  if (end == std::string::npos) return "";
  std::string id = text.substr(i + 1, end - i - 1);
  return id.size() >= kMinIdLength ? id : "";
}

std::vector<size_t> GroupFacets(const std::vector<const store::ChangeEvent*>& events,
                                const std::vector<bool>& exceptional) {
  const size_t n = events.size();
  FacetSets sets(n);
  std::map<std::string, std::vector<size_t>> exact;                          // key -> events
  std::map<std::string, std::vector<std::pair<TimePoint, size_t>>> spanned;  // key -> (time, event)
  std::map<std::string, size_t> executions;                                  // execution id -> event
  std::map<std::string, bool> revision_seen;
  for (size_t i = 0; i < n; ++i) {
    const store::ChangeEvent& e = *events[i];
    const Json& ev = e.evidence;
    const std::string job = FacetField(ev, "job_id");
    if (!job.empty()) spanned["job\n" + e.asset_id + "\n" + job].push_back({e.happened_at, i});
    std::string savepoint = FacetField(ev, "savepoint_path");
    if (savepoint.empty() && e.kind == k::kRestore) savepoint = FacetField(ev, "external_path");
    if (!savepoint.empty()) exact["savepoint\n" + e.asset_id + "\n" + savepoint].push_back(i);
    if (IsFacetRun(e.kind)) {
      const std::string id = FacetField(ev, "execution_id");
      if (!id.empty()) {
        exact["execution\n" + e.asset_id + "\n" + id].push_back(i);
        if (id.size() >= kMinIdLength) executions.emplace(id, i);
      }
    }
    if (e.kind == k::kFlowRevision) {
      const std::string rev = FacetField(ev, "to_revision");
      if (!rev.empty()) {
        exact["revision\n" + e.asset_id + "\n" + rev].push_back(i);
        revision_seen["revision\n" + e.asset_id + "\n" + rev] = true;
      }
    }
    if (e.kind == k::kModelChange) {
      const std::string inv = FacetField(ev, "invocation_id");
      exact[inv.empty() ? "manifest\n" + FacetField(ev, "manifest") + "\n" + FormatRfc3339(e.happened_at) : "dbt\n" + inv].push_back(i);
    }
    if (e.kind == k::kWarehouseWrite) {
      const std::string inv = DbtInvocationId(FacetField(ev, "query_tag") + "\n" + FacetField(ev, "query_text"));
      if (!inv.empty()) exact["dbt\n" + inv].push_back(i);
    }
  }
  // A routine run is a facet of the revision it ran, when that revision's save is a candidate.
  for (size_t i = 0; i < n; ++i) {
    const store::ChangeEvent& e = *events[i];
    if (!IsFacetRun(e.kind) || (i < exceptional.size() && exceptional[i])) continue;
    const std::string key = "revision\n" + e.asset_id + "\n" + FacetField(e.evidence, "flow_revision");
    if (revision_seen.count(key)) exact[key].push_back(i);
  }
  // A statement that names an execution (a query tag a flow sets to its execution id) is that
  // execution's write.
  for (size_t i = 0; i < n && !executions.empty(); ++i) {
    const store::ChangeEvent& e = *events[i];
    if (e.kind != k::kWarehouseWrite) continue;
    const std::string text = FacetField(e.evidence, "query_tag") + "\n" + FacetField(e.evidence, "query_text");
    for (const auto& [id, run] : executions)
      if (text.find(id) != std::string::npos) sets.Join(i, run);
  }
  for (const auto& [key, members] : exact)
    for (size_t m : members) sets.Join(members.front(), m);
  for (auto& [key, members] : spanned) {
    std::sort(members.begin(), members.end());
    for (size_t m = 1; m < members.size(); ++m)
      if (members[m].first - members[m - 1].first <= kFacetSpan) sets.Join(members[m - 1].second, members[m].second);
  }
  std::vector<size_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = sets.Find(i);
  return out;
}

}  // namespace dw::incidents
