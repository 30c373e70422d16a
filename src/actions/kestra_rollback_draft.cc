// The Kestra flow diff for an incident whose cause is a saved flow revision: roll the flow back to
// the revision it replaced. The revision's evidence carries the unified diff of its source against
// that revision (the Kestra collector reads both from the flow's revisions); undoing that diff on
// the team's flow file gives the file that restores the earlier source. When the team's file
// already holds the earlier source (revision N was saved in Kestra's editor, not from the file),
// the file is what to save, and the diff of the file is empty. The fix names the source Kestra
// runs now (base_sha256, base_revision), so that verification asks whether the live revision is
// the rollback or later (cause_check.h).
#include "actions/drafting.h"
#include "observe/changes/change_kinds.h"

namespace dw::actions {
namespace {

namespace k = observe::changes;

// The stored event of the cause's flow revision: the top candidate itself, or the revision it was
// ranked with (a routine run is a facet of the revision it ran); nullopt when there is none.
std::optional<store::ChangeEvent> RevisionEvent(const DraftContext& c) {
  std::vector<std::pair<std::string, TimePoint>> wanted;  // dedup key, time
  if (c.cause.kind == k::kFlowRevision) wanted.emplace_back(c.cause.dedup_key, c.cause.happened_at);
  for (const incidents::Facet& f : c.cause.facets)
    if (f.kind == k::kFlowRevision && f.asset_id == c.cause.asset_id) wanted.emplace_back(f.dedup_key, f.happened_at);
  for (const auto& [key, at] : wanted) {
    Result<std::vector<store::ChangeEvent>> events =
        c.store.ChangeEventsFor(c.cause.asset_id, at, at + std::chrono::milliseconds(1));
    if (!events.ok()) continue;
    for (store::ChangeEvent& e : *events)
      if (e.kind == k::kFlowRevision && e.dedup_key == key) return std::move(e);
  }
  return std::nullopt;
}

int64_t IntOr(const Json& j, const char* key, int64_t fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
}

// "adds 3 line(s) and removes 1" of a unified diff.
std::string DiffSize(const std::string& diff) {
  int added = 0, removed = 0;
  for (const std::string& line : SplitLinesKeepingEnds(diff)) {
    if (line.rfind("+++ ", 0) == 0 || line.rfind("--- ", 0) == 0) continue;
    if (!line.empty() && line[0] == '+') ++added;
    if (!line.empty() && line[0] == '-') ++removed;
  }
  return "adds " + std::to_string(added) + " line(s) and removes " + std::to_string(removed);
}

}  // namespace

bool CauseIsFlowRevision(const DraftContext& c) {
  if (!KestraFlowOf(c.cause.asset_id)) return false;
  if (c.cause.kind == k::kFlowRevision) return true;
  for (const incidents::Facet& f : c.cause.facets)
    if (f.kind == k::kFlowRevision && f.asset_id == c.cause.asset_id) return true;
  return false;
}

DraftedProposal DraftKestraRollback(const DraftContext& c) {
  std::optional<KestraFlowName> flow = KestraFlowOf(c.cause.asset_id);
  const std::string name = flow ? flow->namespace_ + "." + flow->id : c.cause.asset_id;
  std::string title = "roll back " + name + " to the revision before the cause";
  auto not_drafted = [&](const std::string& why) { return NotDrafted(ProposalKind::kKestraFlowDiff, title, why); };
  if (!flow) return not_drafted("the top cause is not a Kestra flow");
  std::optional<store::ChangeEvent> event = RevisionEvent(c);
  if (!event) return not_drafted("the change events hold no saved revision of " + name + " behind the cause");
  const Json& ev = event->evidence;
  const int64_t bad = IntOr(ev, "to_revision", 0);
  const int64_t good = IntOr(ev, "diff_against_revision", IntOr(ev, "from_revision", bad - 1));
  const std::string rev_n = "revision " + std::to_string(bad), rev_m = "revision " + std::to_string(good);
  title = "roll back " + name + " to " + rev_m + " (undo " + rev_n + ", the cause)";
  if (!ev.is_object() || !ev.contains("diff") || !ev["diff"].is_string())
    return not_drafted(rev_n + "'s evidence holds no diff of its source (" + ev.value("diff_note", std::string("none recorded")) +
                       "): restore " + rev_m + " from the flow's revision history in Kestra by hand");
  if (ev.value("diff_truncated", false))
    return not_drafted(rev_n + "'s diff was cut short when it was recorded, so it cannot be undone line by line: "
                       "restore " + rev_m + " from the flow's revision history in Kestra by hand");
  const std::string& diff = ev["diff"].get_ref<const std::string&>();
  Result<std::string> reverse = ReverseUnifiedDiff(diff);
  if (!reverse.ok()) return not_drafted(rev_n + "'s recorded diff cannot be read: " + reverse.status().message());
  Result<FlowFile> file = FindFlowFile(c.ws, flow->namespace_, flow->id);
  if (!file.ok()) return not_drafted(file.status().message());

  // Which side of revision N's diff the team's file is on: revision N's source (undo the diff on
  // it), or already revision M's (revision N was saved in Kestra, not from the file).
  std::string bad_source, good_source;
  if (Result<std::string> undone = ApplyUnifiedDiff(*reverse, file->text); undone.ok()) {
    bad_source = file->text;
    good_source = *undone;
  } else if (Result<std::string> redone = ApplyUnifiedDiff(diff, file->text); redone.ok()) {
    bad_source = *redone;
    good_source = file->text;
  } else {
    return not_drafted("the team's file " + file->path.string() + " holds neither " + rev_n + "'s source nor " + rev_m +
                       "'s where the revision's diff changes it (" + undone.status().message() +
                       "): restore " + rev_m + " in Kestra and bring the file in line by hand");
  }
  const bool file_holds_good = good_source == file->text;

  KestraFlowDiffProposal d;
  d.flow = c.cause.asset_id;
  d.file = file->path.string();
  d.base_sha256 = Sha256Hex(bad_source);
  d.base_revision = bad;
  if (c.options.current_flow_revision) {
    Result<FlowRevision> now = c.options.current_flow_revision(flow->platform, flow->namespace_, flow->id);
    if (!now.ok()) {
      d.changes.push_back("Kestra could not be asked for the current revision (" + now.status().message() +
                          "): check that it still runs " + rev_n + " before saving");
    } else if (now->source == good_source) {
      return not_drafted("Kestra already runs revision " + std::to_string(now->revision) + ", whose source is " + rev_m +
                         "'s: there is nothing to roll back");
    } else if (now->source != bad_source) {
      return not_drafted("Kestra runs revision " + std::to_string(now->revision) + ", whose source is neither " + rev_n +
                         "'s nor " + rev_m + "'s: rolling back would also undo what was saved after " + rev_n +
                         "; the owner decides what to keep");
    } else {
      d.base_revision = now->revision;
    }
  }
  std::error_code ec;
  std::string rel = std::filesystem::relative(file->path, c.ws.dir, ec).string();
  if (ec || rel.empty() || rel.rfind("..", 0) == 0) rel = file->path.filename().string();
  d.diff = MakeUnifiedDiff(rel, file->text, good_source);
  d.undo_diff = MakeUnifiedDiff(rel, good_source, file->text);
  Result<std::string> check = ApplyUnifiedDiff(d.diff, file->text);
  if (!check.ok() || *check != good_source)
    return not_drafted("the drafted diff does not apply to its own base");
  const std::string next = "revision " + std::to_string(d.base_revision + 1);
  d.changes.insert(d.changes.begin(),
                   "roll back to " + rev_m + ": undo " + rev_n + ", the cause, which " + DiffSize(diff) + " against " +
                       rev_m + (file_holds_good ? "; the team's file " + rel + " already holds " + rev_m +
                                                      "'s source (" + rev_n + " was saved in Kestra, not from it)"
                                                : ""));
  d.steps = {file_holds_good
                 ? "save " + rel + " in Kestra as the flow's next revision (" + next + "), or restore " + rev_m +
                       " from the flow's revision history in Kestra"
                 : "apply the diff to " + rel + " (it restores " + rev_m + "'s source) and save the flow in Kestra as its "
                   "next revision (" + next + "), or restore " + rev_m + " from the flow's revision history in Kestra "
                   "and merge the diff through the team's Git workflow",
             "run " + name + " once and check that what it writes is back in line (the verification plan)"};
  return DraftedKestraFlowDiff(
      c, title, d,
      "save " + rev_n + "'s source again (restore " + rev_n + " in Kestra's revision history), which brings the cause back" +
          (d.diff.empty() ? std::string() : "; revert the diff in the team's file (undo_diff)"));
}

}  // namespace dw::actions
