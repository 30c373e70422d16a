// The Kestra flow diff for an incident whose top cause is a flow's execution: from the team's
// flow file and the execution's evidence. When the evidence shows the flow called a versioned
// endpoint (/vN/...) and the graph knows a newer version of that endpoint, the diff points the
// task at it; and when the team's own checks name the input's validity field (e.g.
// effective_from), an Assert task after that task fails the execution when the input is older
// than the current period. Nothing is drafted without both a flow source and such evidence.
#include <algorithm>
#include <regex>
#include <set>

#include "actions/drafting.h"

namespace dw::actions {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    out.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

size_t Indent(const std::string& s) { return s.find_first_not_of(' ') == std::string::npos ? s.size() : s.find_first_not_of(' '); }

// URLs with a /vN/ path segment that the evidence shows were called.
std::set<std::string> CalledVersionedUrls(const DraftContext& c) {
  static const std::regex url(R"((https?://[A-Za-z0-9._:-]+)?(/[A-Za-z0-9._~%-]+)*/v[0-9]+/[A-Za-z0-9._~%/-]+)");
  std::string text;
  for (const std::string& e : c.cause.evidence) text += e + "\n";
  Result<std::vector<store::ChangeEvent>> events =
      c.store.ChangeEventsFor(c.cause.asset_id, c.cause.happened_at, c.cause.happened_at + std::chrono::seconds(1));
  if (events.ok())
    for (const store::ChangeEvent& e : *events) text += e.evidence.dump() + "\n";
  std::set<std::string> out;
  for (std::sregex_iterator it(text.begin(), text.end(), url), end; it != end; ++it) out.insert(it->str());
  return out;
}

// The newest version M > N of an endpoint ".../vN/<rest>" the graph knows (an asset whose id ends
// in "/vM/<rest>"), or 0.
int NewerVersion(const graph::GraphIndex& index, int n, const std::string& rest) {
  int best = 0;
  static const std::regex versioned(R"(/v([0-9]+)/(.+)$)");
  for (graph::AssetIndex a = 0; a < index.asset_count(); ++a) {
    const std::string& id = index.id(a);
    std::smatch m;
    if (!std::regex_search(id, m, versioned) || m[2].str() != rest) continue;
    int v = std::stoi(m[1].str());
    if (v > n && v > best) best = v;
  }
  return best;
}

// A validity column the team's checks on the damaged assets compare against ("effective_from",
// "valid_from"), or "".
std::string ValidityField(const DraftContext& c) {
  static const std::regex field(R"(\b([a-z_]*(effective|valid)_from)\b)");
  std::set<std::string> damaged(c.incident.damaged_assets.begin(), c.incident.damaged_assets.end());
  for (const config::CheckConfig& check : c.ws.checks) {
    if (!damaged.count(check.asset_id) || !check.spec.contains("custom")) continue;
    for (const Json& custom : check.spec["custom"]) {
      std::string sql = custom.value("sql", "");
      std::smatch m;
      if (std::regex_search(sql, m, field)) return m[1].str();
    }
  }
  return "";
}

}  // namespace

DraftedProposal DraftKestraFlowFix(const DraftContext& c) {
  const std::string title = "fix the flow behind the cause, " + c.cause.asset_id;
  std::optional<KestraFlowName> flow = KestraFlowOf(c.cause.asset_id);
  if (!flow) return NotDrafted(ProposalKind::kKestraFlowDiff, title, "the top cause is not a Kestra flow");
  Result<FlowFile> file = FindFlowFile(c.ws, flow->namespace_, flow->id);
  if (!file.ok()) return NotDrafted(ProposalKind::kKestraFlowDiff, title, file.status().message());
  KestraFlowDiffProposal d;
  d.flow = c.cause.asset_id;
  d.file = file->path.string();
  if (c.options.current_flow_revision) {
    Result<FlowRevision> rev = c.options.current_flow_revision(flow->platform, flow->namespace_, flow->id);
    if (!rev.ok()) {
      d.changes.push_back("Kestra could not be asked for the current revision (" + rev.status().message() +
                          "): the diff is against the team's file; check it matches the current revision before "
                          "saving");
    } else if (rev->source != file->text) {
      return NotDrafted(ProposalKind::kKestraFlowDiff, title,
                        "the team's file " + d.file + " differs from revision " + std::to_string(rev->revision) +
                            " in Kestra; a diff of one would not apply to the other");
    } else {
      d.base_revision = rev->revision;
    }
  }
  std::vector<std::string> lines = Lines(file->text);
  static const std::regex vn(R"(/v([0-9]+)/(.+)$)");
  std::string fixed_task;
  size_t fixed_task_line = 0;
  for (const std::string& called : CalledVersionedUrls(c)) {
    std::smatch m;
    if (!std::regex_search(called, m, vn)) continue;
    int n = std::stoi(m[1].str());
    const std::string rest = m[2].str();
    int newer = NewerVersion(c.index, n, rest);
    if (newer == 0) continue;
    const std::string from = "/v" + std::to_string(n) + "/" + rest, to = "/v" + std::to_string(newer) + "/" + rest;
    for (size_t i = 0; i < lines.size(); ++i) {
      size_t at = lines[i].find(called);
      if (at == std::string::npos) continue;
      size_t v = lines[i].find(from, at);
      lines[i].replace(v, from.size(), to);
      // The task the line belongs to: the nearest "- id:" above it.
      for (size_t j = i + 1; j-- > 0;) {
        size_t ind = Indent(lines[j]);
        if (lines[j].compare(ind, 6, "- id: ") == 0) {
          fixed_task = lines[j].substr(ind + 6);
          fixed_task_line = j;
          break;
        }
      }
      d.changes.push_back((fixed_task.empty() ? "" : fixed_task + ": ") + "call " + to + " instead of " + from +
                          " (the evidence shows " + called + " was called; the graph knows the newer v" +
                          std::to_string(newer) + " endpoint)");
    }
  }
  const bool fixed = std::any_of(d.changes.begin(), d.changes.end(),
                                 [](const std::string& x) { return x.find(" instead of ") != std::string::npos; });
  if (!fixed)
    return NotDrafted(ProposalKind::kKestraFlowDiff, title,
                      "the evidence names no versioned endpoint the flow calls for which a newer version is "
                      "known in the graph, so there is no fix to derive from the flow source");
  const std::string field = ValidityField(c);
  if (!fixed_task.empty() && !field.empty()) {
    // Insert the Assert after the fixed task's block.
    size_t item = Indent(lines[fixed_task_line]);
    size_t end = fixed_task_line + 1;
    while (end < lines.size() && (lines[end].empty() || Indent(lines[end]) > item)) ++end;
    const std::string pad(item, ' '), prop(item + 2, ' ');
    std::vector<std::string> assert_task = {
        pad + "- id: assert_current_" + field,
        prop + "type: io.kestra.plugin.core.execution.Assert",
        prop + "errorMessage: \"" + fixed_task + " returned " + field +
            " older than the current period: stale input, not stored\"",
        prop + "conditions:",
        prop + "  - \"{{ fromJson(outputs." + fixed_task + ".body)." + field +
            " >= (execution.startDate | date('yyyy-MM-01')) }}\""};
    lines.insert(lines.begin() + static_cast<long>(end), assert_task.begin(), assert_task.end());
    d.changes.push_back("assert_current_" + field + ": a new Assert task after " + fixed_task +
                        " fails the execution when the response's " + field +
                        " is older than the current period (the month the execution starts in)");
  } else {
    d.changes.push_back("no Assert task added: the team's checks on the damaged assets name no validity field "
                        "(such as effective_from) to assert on");
  }
  std::string after;
  for (const std::string& l : lines) after += l + "\n";
  if (!file->text.empty() && file->text.back() != '\n') after.pop_back();
  std::error_code ec;
  std::string rel = std::filesystem::relative(file->path, c.ws.dir, ec).string();
  if (ec || rel.empty() || rel.rfind("..", 0) == 0) rel = file->path.filename().string();
  d.diff = MakeUnifiedDiff(rel, file->text, after);
  d.undo_diff = MakeUnifiedDiff(rel, after, file->text);
  d.base_sha256 = Sha256Hex(file->text);
  Result<std::string> check = ApplyUnifiedDiff(d.diff, file->text);
  if (!check.ok() || *check != after)
    return NotDrafted(ProposalKind::kKestraFlowDiff, title, "the drafted diff does not apply to its own base");
  d.steps = {"apply the diff to " + rel + " and save the flow in Kestra as its next revision" +
                 (d.base_revision ? " (revision " + std::to_string(d.base_revision + 1) + ")" : std::string()) +
                 ", or merge it through the team's Git workflow",
             "run " + flow->namespace_ + "." + flow->id + " once and check it called the new endpoint"};
  return DraftedKestraFlowDiff(c, title, d,
                               "revert the diff (undo_diff) and save the flow again" +
                                   (d.base_revision ? " (or restore revision " + std::to_string(d.base_revision) + " in Kestra)" : std::string()));
}

}  // namespace dw::actions
