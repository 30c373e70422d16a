#include "incidents/cause_shape.h"

#include <algorithm>
#include <cctype>

#include "observe/changes/change_kinds.h"

namespace dw::incidents {

namespace {

namespace k = observe::changes;

bool Has(const std::vector<SignalShape>& shapes, SignalShape s) {
  return std::find(shapes.begin(), shapes.end(), s) != shapes.end();
}

// The positions of "/v<digits>/" segments in `id`.
struct VersionSegment {
  size_t pos;  // of the 'v'
  size_t len;  // of "v<digits>"
  int version;
};
std::vector<VersionSegment> VersionSegments(const std::string& id) {
  std::vector<VersionSegment> out;
  for (size_t i = 1; i + 1 < id.size(); ++i) {
    if (id[i - 1] != '/' || id[i] != 'v' || !std::isdigit(static_cast<unsigned char>(id[i + 1]))) continue;
    size_t j = i + 1;
    while (j < id.size() && std::isdigit(static_cast<unsigned char>(id[j]))) ++j;
    if (j < id.size() && id[j] != '/') continue;
    if (j - i > 5) continue;
    out.push_back({i, j - i, std::stoi(id.substr(i + 1, j - i - 1))});
  }
  return out;
}

// Where the event's evidence names `needle` (a log line or an output), or "".
std::string EvidenceMentioning(const Json& evidence, const std::string& needle) {
  if (evidence.is_object() && evidence.contains("log_excerpt") && evidence["log_excerpt"].is_array())
    for (const Json& l : evidence["log_excerpt"])
      if (l.is_object() && l.value("message", std::string()).find(needle) != std::string::npos)
        return "log: " + l.value("message", std::string());
  if (evidence.is_object() && evidence.contains("task_runs") && evidence["task_runs"].is_array())
    for (const Json& t : evidence["task_runs"])
      if (t.is_object() && t.value("outputs", std::string()).find(needle) != std::string::npos)
        return "task " + t.value("task_id", std::string()) + " outputs name " + needle;
  return "";
}

bool DataShape(SignalShape s) { return s != SignalShape::kUnknown && s != SignalShape::kStateDropped; }

int64_t EvidenceCount(const Json& evidence, const char* key) {
  auto it = evidence.is_object() ? evidence.find(key) : evidence.end();
  return it != evidence.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

// A statement the warehouse recorded writing the table: what its type and row counts can do to
// the numbers read from it. Deleting or replacing rows explains a drop; appending explains a rise
// or a doubling (a load applied twice appends a second copy); changing rows in place explains new
// nulls, stale values and moved totals. A write whose effect is the opposite of the damage (an
// append before a drop) fits poorly and says so.
ShapeFit FitWrite(const store::ChangeEvent& event, const std::vector<SignalShape>& shapes) {
  ShapeFit f;
  f.cause_kind = event.kind;
  const std::string type = event.evidence.value("statement_type", std::string());
  std::string upper = type;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const int64_t inserted = EvidenceCount(event.evidence, "rows_inserted");
  const int64_t updated = EvidenceCount(event.evidence, "rows_updated");
  const int64_t deleted = EvidenceCount(event.evidence, "rows_deleted");
  const bool replaces = upper.find("TRUNCATE") != std::string::npos || upper.find("CREATE_TABLE") != std::string::npos ||
                        upper.find("REPLACE") != std::string::npos || upper.find("DROP") != std::string::npos;
  const bool drop = Has(shapes, SignalShape::kLevelDrop);
  const bool more = Has(shapes, SignalShape::kDoubling) || Has(shapes, SignalShape::kLevelRise);
  const bool in_place = Has(shapes, SignalShape::kNullRateJump) || Has(shapes, SignalShape::kRepeatsEarlier) ||
                        Has(shapes, SignalShape::kMismatchesFound);
  const std::string who = "the " + (type.empty() ? std::string("write") : type);
  if (drop && (deleted > 0 || replaces)) {
    f.fit = 0.9;
    f.explanation = who + " removed or replaced rows of the table: a drop";
  } else if (more && inserted > 0 && deleted == 0) {
    f.fit = Has(shapes, SignalShape::kDoubling) ? 0.8 : 0.7;
    f.explanation = who + " appended " + std::to_string(inserted) + " rows: more than the table usually receives";
  } else if (in_place && (updated > 0 || replaces || upper == "MERGE" || upper == "UPDATE")) {
    f.fit = 0.7;
    f.explanation = who + " rewrote rows in place: it can leave nulls, stale values or totals that disagree";
  } else if (drop && inserted > 0 && deleted == 0 && updated == 0) {
    f.fit = 0.2;
    f.explanation = who + " only appended rows";
    f.counter_evidence.push_back("appending rows does not explain a drop");
  } else {
    f.fit = 0.4;
    f.explanation = who + " wrote the table; its row counts do not say how it would cause this";
  }
  return f;
}

// What a saved revision's diff (the collector's `diff`: a unified diff of the flow's source against
// the revision it replaced) did to the flow's appends: the first added line that appends to a table
// (INSERT INTO, COPY INTO, a WRITE_APPEND disposition) when the revision adds more such lines than
// it removes, else "". A revision that adds an append makes every run write its rows once more: the
// duplicated day of a flow that now inserts twice.
std::string AddedAppend(const Json& evidence) {
  if (!evidence.is_object() || !evidence.contains("diff") || !evidence["diff"].is_string()) return "";
  const std::string& diff = evidence["diff"].get_ref<const std::string&>();
  auto appends = [](std::string line) {
    for (char& c : line) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return line.find("INSERT INTO") != std::string::npos || line.find("COPY INTO") != std::string::npos ||
           line.find("WRITE_APPEND") != std::string::npos;
  };
  int added = 0, removed = 0;
  std::string first;
  size_t pos = 0;
  while (pos < diff.size()) {
    size_t end = diff.find('\n', pos);
    if (end == std::string::npos) end = diff.size();
    const std::string line = diff.substr(pos, end - pos);
    pos = end + 1;
    if (line.rfind("+++", 0) == 0 || line.rfind("---", 0) == 0 || line.empty()) continue;
    if (line[0] == '+' && appends(line)) {
      if (++added == 1) first = line;
    } else if (line[0] == '-' && appends(line)) {
      ++removed;
    }
  }
  if (added <= removed) return "";
  return first.size() > 300 ? first.substr(0, 300) + "..." : first;
}

bool SameExecution(const store::ChangeEvent& a, const store::ChangeEvent& b) {
  auto id = [](const store::ChangeEvent& e) {
    auto it = e.evidence.is_object() ? e.evidence.find("execution_id") : e.evidence.end();
    return it != e.evidence.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const std::string x = id(a);
  return !x.empty() && x == id(b);
}

}  // namespace

std::string SupersededInput(const graph::GraphIndex& index, const std::string& flow, std::string* newer) {
  graph::AssetIndex a = index.Find(flow);
  if (a == graph::kNone) return "";
  for (graph::EdgeIndex e : index.in(a)) {
    const std::string& input = index.id(index.edge(e).src);
    for (const VersionSegment& v : VersionSegments(input)) {
      for (int next = v.version + 1; next <= v.version + 9; ++next) {
        std::string candidate = input.substr(0, v.pos) + "v" + std::to_string(next) + input.substr(v.pos + v.len);
        if (index.Find(candidate) != graph::kNone) {
          if (newer) *newer = candidate;
          return input;
        }
      }
    }
  }
  return "";
}

ShapeFit FitShape(const store::ChangeEvent& event, const std::vector<SignalShape>& shapes,
                  const std::vector<store::ChangeEvent>& others, const graph::GraphIndex* index,
                  const RunProfile* profile) {
  ShapeFit f;
  f.cause_kind = event.kind;
  const bool any_data = std::any_of(shapes.begin(), shapes.end(), DataShape);
  const bool drop = Has(shapes, SignalShape::kLevelDrop) || (!any_data && Has(shapes, SignalShape::kStateDropped));
  const std::string& kind = event.kind;

  if (kind == k::kRestoreSkippedState) {
    if (drop) {
      f.fit = 1.0;
      f.explanation = "the restore dropped operator state, so every value computed from it restarted from empty: a level drop towards zero";
    } else if (Has(shapes, SignalShape::kDoubling) || Has(shapes, SignalShape::kNullRateJump)) {
      f.fit = 0.1;
      f.explanation = "a restore that dropped state makes values smaller, not doubled or null";
      f.counter_evidence.push_back("the damage is not a drop, which dropped state would cause");
    } else {
      f.fit = 0.4;
      f.explanation = "a restore that dropped state changes every value computed from it";
    }
    return f;
  }

  if (kind == k::kExecution || kind == k::kExecutionReplay) {
    std::string state = event.evidence.is_object() ? event.evidence.value("state", std::string()) : "";
    // A stale input: the flow reads a source the graph knows a newer version of, and its evidence
    // shows the call.
    std::string newer;
    std::string stale = index ? SupersededInput(*index, event.asset_id, &newer) : "";
    if (!stale.empty()) {
      // "/v1/tariffs/current" for api://pricing/v1/tariffs/current
      std::string path = stale.substr(stale.find("://") + 3);
      path = path.substr(path.find('/'));
      std::string seen = EvidenceMentioning(event.evidence, path);
      if (!seen.empty() || state == "SUCCESS") {
        f.cause_kind = "stale_input";
        bool fits = Has(shapes, SignalShape::kRepeatsEarlier) || Has(shapes, SignalShape::kMismatchesFound);
        f.fit = fits ? 1.0 : (any_data ? 0.5 : 0.6);
        f.explanation = "the run read " + stale + " while " + newer + " exists: a stale input" +
                        (fits ? ", which explains values equal to an earlier period's" : "");
        if (seen.empty()) f.counter_evidence.push_back("its logs do not show the call to " + path);
        return f;
      }
    }
    if (RerunsPastSlot(event)) {
      // A backfill writes an earlier slot again: on top of its rows if the flow appends, in their
      // place if it reloads, so both a doubling and a drop can be its doing (the slot's own run,
      // beside it, is the routine one).
      const bool doubling = Has(shapes, SignalShape::kDoubling);
      f.cause_kind = "rerun_of_past_slot";
      f.fit = doubling ? 0.9 : drop ? 0.8 : any_data ? 0.5 : 0.4;
      f.explanation = "the run wrote an earlier slot again (a backfill): " +
                      std::string(doubling ? "on top of the rows its own run wrote, which explains a doubling"
                                  : drop   ? "in place of the rows its own run wrote, which explains fewer rows"
                                           : "on top of or in place of the rows its own run wrote");
      return f;
    }
    bool duplicated = kind == k::kExecutionReplay;
    RunProfile learnt;
    if (profile == nullptr) {
      learnt = LearnRuns(others);
      profile = &learnt;
    }
    const bool scheduled = profile->cadence || (index && index->Find(event.asset_id) != graph::kNone &&
                                                !index->details(index->Find(event.asset_id)).schedule.empty());
    if (!duplicated && scheduled) {
      // Two runs for one slot: closer than half the flow's usual gap (an hour when it has none
      // yet). A run that looks like the last N beside one that does not is the slot's own run; the
      // other is the duplicate.
      const auto slot = profile->cadence ? std::chrono::duration_cast<std::chrono::milliseconds>(*profile->cadence) / 2
                                         : std::chrono::milliseconds(std::chrono::hours(1));
      const bool within_slot_inclusive = !profile->cadence;
      auto routine = [&](const store::ChangeEvent& r) {
        RunJudgement j = JudgeRun(r, *profile, others);
        return j.known && !j.exceptional;
      };
      const bool me_routine = routine(event);
      for (const store::ChangeEvent& o : others) {
        if (o.id == event.id || o.dedup_key == event.dedup_key || o.asset_id != event.asset_id || o.kind != event.kind) continue;
        if (SameExecution(o, event)) continue;  // one run seen in two states
        auto gap = RunStart(o) > RunStart(event) ? RunStart(o) - RunStart(event) : RunStart(event) - RunStart(o);
        if (!(within_slot_inclusive ? gap <= slot : gap < slot)) continue;
        if (me_routine && !routine(o)) continue;
        duplicated = true;
      }
    }
    if (duplicated) {
      f.cause_kind = "duplicated_run";
      f.fit = Has(shapes, SignalShape::kDoubling) ? 1.0 : 0.3;
      f.explanation = "the flow ran twice for one slot: a duplicated run" +
                      std::string(Has(shapes, SignalShape::kDoubling) ? ", which explains a doubling" : "");
      return f;
    }
    if (state == "FAILED" || state == "KILLED" || state == "CANCELLED") {
      f.fit = drop ? 0.7 : 0.3;
      f.explanation = "the run did not finish, so what it should have written is missing" +
                      std::string(drop ? ": a drop" : "");
      return f;
    }
    if (state == "WARNING") {
      // Kestra's WARNING: the run finished, but some task did not do what it should (a page that
      // timed out, a task allowed to fail): what it wrote may be partial, or written again.
      f.fit = any_data ? 0.5 : 0.4;
      f.explanation = "the run ended in WARNING: some task did not do what it should, so what it wrote may be partial or repeated";
      return f;
    }
    f.fit = 0.3;
    f.explanation = "a green run can still write wrong output, but nothing in its evidence says it did";
    f.counter_evidence.push_back("the execution succeeded and read no superseded input");
    return f;
  }

  if (kind == k::kSchemaVersion) {
    std::string ev = event.evidence.dump() + " " + event.reason;
    bool removed = ev.find("removed") != std::string::npos || ev.find("deleted") != std::string::npos;
    if (Has(shapes, SignalShape::kNullRateJump)) {
      f.fit = removed ? 1.0 : 0.5;
      f.explanation = removed ? "the schema version removed a field, so readers find it null: a null-rate jump"
                              : "a new schema version can leave fields null";
      if (!removed) f.counter_evidence.push_back("the evidence does not say a field was removed");
    } else {
      f.fit = 0.2;
      f.explanation = "a schema version explains nulls, not this shape";
    }
    return f;
  }

  if (kind == k::kWarehouseWrite) return FitWrite(event, shapes);

  if (kind == k::kFlowRevision) {
    const std::string append = AddedAppend(event.evidence);
    const bool doubling = Has(shapes, SignalShape::kDoubling), rise = Has(shapes, SignalShape::kLevelRise);
    if (!append.empty() && (doubling || rise)) {
      f.fit = doubling ? 0.8 : 0.7;
      f.explanation = "the revision adds a statement that appends to what the flow writes (" + append +
                      "): every run since writes its rows once more" + (doubling ? ", which explains a doubling" : "");
      return f;
    }
  }
  if (kind == k::kDeploy || kind == k::kFlowRevision || kind == k::kConfigRisk || kind == "model_change") {
    f.fit = Has(shapes, SignalShape::kDoubling) ? 0.3 : 0.5;
    f.explanation = "a change of the job's logic or configuration can change what it writes";
    return f;
  }
  if (kind == k::kRestore) {
    f.fit = Has(shapes, SignalShape::kDoubling) ? 0.5 : 0.2;
    f.explanation = "a restore that kept its state replays from the snapshot's offsets" +
                    std::string(Has(shapes, SignalShape::kDoubling) ? ": a sink that is not idempotent can write twice" : "");
    f.counter_evidence.push_back("no operator state was skipped");
    return f;
  }
  if (kind == k::kConnectorState || kind == k::kTriggerToggled) {
    f.fit = drop ? 0.6 : 0.2;
    f.explanation = "a stopped connector or trigger means rows stop arriving" + std::string(drop ? ": a drop" : "");
    return f;
  }
  f.fit = 0.2;
  f.explanation = "a " + kind + " on an upstream asset";
  return f;
}

}  // namespace dw::incidents
