// The Numenta Anomaly Benchmark, run with the product's streaming detector and scored with our
// implementation of NAB's scoring (src/observe/metrics/nab_score.h).
//
// For each of the 58 files under NAB_DIR/data it feeds the points, in order, to a fresh
// StreamingDetector (each point judged with only the points before it; one parameter set for all
// files), writes NAB's results format to OUT_DIR/<group>/dataworkers_<name>.csv
// (timestamp,value,anomaly_score,label), then prints the score under the three profiles and the
// time taken (detection, and detection + scoring) on one thread, wall clock and CPU. It also
// scores the product's verdicts as 0/1 anomaly scores ("alarm": every alarm verdict, what
// `dw watch` alarms on; "new alarm": only those that are not a repeat within an episode), under
// the same three profiles, so the figure for what users see is next to the one for the score;
// "new alarm, score >= 0.5" measures what verdicts that also follow the score's busy-series
// discount would score (a diagnostic: the product's verdicts do not do that).
//
// usage: nab_bench NAB_DIR OUT_DIR [key=value ...]
//   keys (for exploring only; the reported figure uses none): sensitivity, level_window,
//   season_depth, training_points, relearn_after, repeat_quiet_points, stuck_min_points,
//   seasonality, drift_ramp_z (the ramp test for slow drifts, off in the product); and, for the
//   CAD OSE experiments (src/observe/metrics/cad_ose.h; measured, not the product's detector):
//   cad=MODE, cad_rest=N (its rest period, default 150), cad_margin=F and cad_freeze=N
//   (CadOseOptions::range_margin, freeze_after), cad_range=file and
//   cad_rest=nab (NAB's whole-file range, NAB's probation / 5: look-ahead, to measure what each
//   is worth), cad_extend=1 (CadOseOptions::extend_levels), cad_input=deviation (CAD fed our
//   signed robust deviation over a fixed +-2 sensitivities instead of the value: levels whose
//   meaning never changes, no range to learn), where MODE is
//     alone      CAD OSE's score alone, over the range learnt so far (no look-ahead)
//     lookahead  CAD OSE as NAB runs it: the whole file's min and max and a rest period of NAB's
//                probation / 5 (look-ahead: only to check the implementation against NAB's
//                published 69.9 / 67.0 / 73.2)
//     max        the larger of ours and CAD's (CAD over the range the cad_ keys give; learnt by
//                default)
//     mean       their mean
//     quiet      ours, cut to 30% where CAD predicted the value (its context is familiar)
//     gate       CAD's, where our deviation is at least half the sensitivity; else 0
//   With a cad mode, the "new alarm, CAD not familiar" verdict row drops the new alarms whose
//   value CAD predicted.
//   For the ARTime experiments (src/observe/metrics/artime.h; measured, not the product's
//   detector): artime=MODE with the same modes as cad= (lookahead: the whole file's min, max and
//   length, as NAB runs it, to check against its published 74.9 / 65.2 / 80.4; quiet: ours cut to
//   30% where ARTime's last judged window resonated with a category), artime_range=file|probation|
//   learnt (the whole file's range: look-ahead; the probation's, frozen, default; the range so
//   far), artime_length=file (the probation from the file's length: look-ahead), artime_margin=F,
//   artime_probation=N (rows, default 750), and its constants artime_window, artime_wpb,
//   artime_chomp, artime_levels, artime_rho (ArtimeOptions). With an artime mode, the "new alarm,
//   ARTime not familiar" verdict row drops the new alarms whose window ARTime found familiar.
//   breakdown=1 also prints, file by file, the windows found and the false positives (count and
//   cost) by the kind of alarm behind them, for the score at the standard threshold and for the
//   new alarms, and why each window the score misses falls short (nab_breakdown.h).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/json.h"
#include "observe/metrics/artime.h"
#include "observe/metrics/cad_ose.h"
#include "observe/metrics/detector.h"
#include "observe/metrics/nab_score.h"
#include "observe/metrics/series_csv.h"
#include "nab_breakdown.h"

namespace fs = std::filesystem;
using namespace dw::observe::metrics;

namespace {

struct Loaded {
  std::string rel;  // group/name.csv
  std::vector<SeriesRow> rows;
  std::vector<std::pair<int64_t, int64_t>> windows;  // ms, inclusive
};

bool ApplyOption(DetectorOptions& o, const std::string& kv) {
  auto eq = kv.find('=');
  if (eq == std::string::npos) return false;
  std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
  if (k == "sensitivity") o.sensitivity = std::stod(v);
  else if (k == "level_window") o.level_window = std::stoul(v);
  else if (k == "season_depth") o.season_depth = std::stoul(v);
  else if (k == "training_points") o.training_points = std::stoul(v);
  else if (k == "relearn_after") o.relearn_after = std::stoul(v);
  else if (k == "repeat_quiet_points") o.repeat_quiet_points = std::stoul(v);
  else if (k == "stuck_min_points") o.stuck_min_points = std::stoul(v);
  else if (k == "seasonality") o.seasonality = ParseSeasonality(v).value();
  else if (k == "drift_ramp_z") o.drift_ramp_z = std::stod(v);
  else return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: nab_bench NAB_DIR OUT_DIR [key=value ...]\n");
    return 2;
  }
  fs::path nab = argv[1], out = argv[2];
  DetectorOptions options;  // the product defaults: one parameter set for every file
  std::string cad_mode;
  size_t cad_rest = 150;
  bool cad_extend = false;
  bool cad_on_deviation = false;  // feed CAD our signed robust deviation, over +-2 sensitivities
  bool nab_rest = false, file_range = false;  // NAB's per-file rest period and range (look-ahead)
  double cad_margin = 0;
  size_t cad_freeze = 0;
  std::string art_mode;
  ArtimeOptions art_base;  // the probation's range, frozen; 750 rows of probation
  bool art_file_range = false, art_file_length = false;
  auto is_mode = [](const std::string& m) {
    return m == "alone" || m == "lookahead" || m == "max" || m == "mean" || m == "quiet" || m == "gate";
  };
  bool breakdown = false;  // print where the points go, file by file (nab_breakdown.h)
  for (int i = 3; i < argc; ++i)
    if (std::string a = argv[i]; a == "breakdown=1") {
      breakdown = true;
    } else if (a.rfind("artime=", 0) == 0) {
      art_mode = a.substr(7);
      if (!is_mode(art_mode)) {
        std::fprintf(stderr, "unknown artime mode %s\n", art_mode.c_str());
        return 2;
      }
    } else if (a == "artime_range=file") {
      art_file_range = true;
    } else if (a == "artime_range=probation") {
      art_base.range = ArtimeRange::kProbation;
    } else if (a == "artime_range=learnt") {
      art_base.range = ArtimeRange::kLearnt;
    } else if (a == "artime_length=file") {
      art_file_length = true;
    } else if (a.rfind("artime_margin=", 0) == 0) {
      art_base.range_margin = std::stod(a.substr(14));
    } else if (a.rfind("artime_probation=", 0) == 0) {
      art_base.probation_rows = std::stoul(a.substr(17));
    } else if (a.rfind("artime_window=", 0) == 0) {
      art_base.window = std::stoul(a.substr(14));
    } else if (a.rfind("artime_wpb=", 0) == 0) {
      art_base.windows_per_pb = std::stoul(a.substr(11));
    } else if (a.rfind("artime_chomp=", 0) == 0) {
      art_base.chomp = std::stod(a.substr(13));
    } else if (a.rfind("artime_levels=", 0) == 0) {
      art_base.levels = std::stoi(a.substr(14));
    } else if (a.rfind("artime_rho=", 0) == 0) {
      art_base.initial_rho = std::stod(a.substr(11));
    } else if (a.rfind("cad=", 0) == 0) {
      cad_mode = a.substr(4);
      if (cad_mode != "alone" && cad_mode != "lookahead" && cad_mode != "max" && cad_mode != "mean" &&
          cad_mode != "quiet" && cad_mode != "gate") {
        std::fprintf(stderr, "unknown cad mode %s\n", cad_mode.c_str());
        return 2;
      }
    } else if (a == "cad_rest=nab") {
      nab_rest = true;
    } else if (a == "cad_input=deviation") {
      cad_on_deviation = true;
    } else if (a == "cad_extend=1") {
      cad_extend = true;
    } else if (a == "cad_range=file") {
      file_range = true;
    } else if (a.rfind("cad_rest=", 0) == 0) {
      cad_rest = std::stoul(a.substr(9));
      if (cad_rest == 0) {
        std::fprintf(stderr, "cad_rest must be at least 1\n");
        return 2;
      }
    } else if (a.rfind("cad_margin=", 0) == 0) {
      cad_margin = std::stod(a.substr(11));
    } else if (a.rfind("cad_freeze=", 0) == 0) {
      cad_freeze = std::stoul(a.substr(11));
    } else if (!ApplyOption(options, argv[i])) {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  if (auto st = ValidateDetectorOptions(options); !st.ok()) {
    std::fprintf(stderr, "%s\n", st.ToString().c_str());
    return 2;
  }

  std::ifstream wf(nab / "labels" / "combined_windows.json");
  dw::Json windows_json;
  try {
    windows_json = dw::Json::parse(wf);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cannot read combined_windows.json: %s\n", e.what());
    return 1;
  }

  std::vector<Loaded> files;
  size_t total_points = 0;
  for (auto& [rel, wins] : windows_json.items()) {
    Loaded l;
    l.rel = rel;
    auto rows = ReadSeriesCsv((nab / "data" / rel).string());
    if (!rows.ok()) {
      std::fprintf(stderr, "%s: %s\n", rel.c_str(), rows.status().ToString().c_str());
      return 1;
    }
    l.rows = std::move(*rows);
    for (const auto& w : wins) {
      auto a = ParseSeriesTimestamp(w[0].get<std::string>());
      auto b = ParseSeriesTimestamp(w[1].get<std::string>());
      if (!a.ok() || !b.ok()) {
        std::fprintf(stderr, "%s: bad window\n", rel.c_str());
        return 1;
      }
      l.windows.push_back({*a, *b});
    }
    total_points += l.rows.size();
    files.push_back(std::move(l));
  }

  // Detection (timed on its own: this is the product's cost).
  auto t0 = std::chrono::steady_clock::now();
  std::clock_t c0 = std::clock();  // CPU time too: the machine is shared, so wall time overstates
  std::vector<NabFile> scored;
  // The product's verdicts as 0/1 scores: what `dw watch` alarms on (every alarm verdict); only
  // the alarms that open or escalate an episode (a repeat continues a reported incident); and,
  // to measure what aligning verdicts with the score would be worth, those of them whose score
  // clears 0.5 (the busy-series discount applied to the verdict too).
  std::vector<NabFile> by_verdict, by_new_alarm, by_new_alarm_scored, by_new_alarm_or_novel,
      by_new_alarm_unfamiliar;
  size_t peak_bytes = 0, peak_cad_contexts = 0, peak_cad_bytes = 0;
  std::vector<size_t> cad_contexts_at_2000;  // per file with 2,000 points or more
  size_t peak_art_categories = 0, peak_art_bytes = 0;
  std::vector<size_t> art_categories_at_2000, art_bytes_at_2000;
  double art_seconds = 0;  // ARTime's own time, measured around each of its calls
  if (art_mode == "lookahead") art_file_range = art_file_length = true;
  std::vector<std::vector<nab_breakdown::Cause>> causes;  // per file and row, with breakdown=1
  std::vector<std::vector<std::string>> sentences;
  for (const Loaded& l : files) {
    StreamingDetector det(l.rel, options);
    CadOseOptions co;
    co.rest_period = cad_rest;
    co.range_margin = cad_margin;
    co.freeze_after = cad_freeze;
    co.extend_levels = cad_extend;
    if (cad_mode == "lookahead") nab_rest = file_range = true;
    if (file_range) {
      double lo = l.rows.front().value, hi = lo;
      for (const SeriesRow& r : l.rows) lo = std::min(lo, r.value), hi = std::max(hi, r.value);
      co.fixed_min = lo;
      co.fixed_max = hi;
    }
    if (cad_on_deviation) {
      co.fixed_min = -2 * options.sensitivity;
      co.fixed_max = 2 * options.sensitivity;
    }
    if (nab_rest) {
      double probation = std::min(std::floor(0.15 * static_cast<double>(l.rows.size())), 750.0);
      co.rest_period = std::max<size_t>(1, static_cast<size_t>(probation / 5.0));
    }
    CadOse cad(co);
    ArtimeOptions ao = art_base;
    if (art_file_range) {
      double lo = l.rows.front().value, hi = lo;
      for (const SeriesRow& r : l.rows) lo = std::min(lo, r.value), hi = std::max(hi, r.value);
      ao.fixed_min = lo;
      ao.fixed_max = hi;
    }
    if (art_file_length) ao.file_length = l.rows.size();
    Artime art(ao);
    NabFile f;
    f.name = l.rel;
    f.scores.reserve(l.rows.size());
    NabFile alarms, new_alarms, new_alarms_scored, or_novel, unfamiliar;
    if (breakdown) {
      causes.emplace_back();
      sentences.emplace_back();
    }
    for (const SeriesRow& r : l.rows) {
      Verdict v = det.Observe(r.ts_ms, r.value);
      if (breakdown) {
        causes.back().push_back(nab_breakdown::CauseOf(v, options.sensitivity));
        sentences.back().push_back(v.explanation);
      }
      double c = cad_mode.empty() ? 0.0 : cad.Observe(cad_on_deviation ? v.deviation : r.value);
      if (!cad_mode.empty() && f.scores.size() + 1 == 2000) cad_contexts_at_2000.push_back(cad.contexts());
      double a = 0;
      if (!art_mode.empty()) {
        auto a0 = std::chrono::steady_clock::now();
        a = art.Observe(r.value);
        art_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - a0).count();
        if (f.scores.size() + 1 == 2000) {
          art_categories_at_2000.push_back(art.categories());
          art_bytes_at_2000.push_back(art.MemoryBytes());
        }
      }
      double s = v.score;
      if (art_mode == "alone" || art_mode == "lookahead") s = a;
      else if (art_mode == "max") s = std::max(v.score, a);
      else if (art_mode == "mean") s = (v.score + a) / 2;
      else if (art_mode == "quiet") s = art.last_familiar() ? 0.3 * v.score : v.score;
      else if (art_mode == "gate") s = std::abs(v.deviation) >= options.sensitivity / 2 ? a : 0.0;
      else if (cad_mode == "alone" || cad_mode == "lookahead") s = c;
      else if (cad_mode == "max") s = std::max(v.score, c);
      else if (cad_mode == "mean") s = (v.score + c) / 2;
      else if (cad_mode == "quiet") s = cad.last_predicted() ? 0.3 * v.score : v.score;
      else if (cad_mode == "gate") s = std::abs(v.deviation) >= options.sensitivity / 2 ? c : 0.0;
      f.scores.push_back(s);
      bool familiar = art_mode.empty() ? cad.last_predicted() : art.last_familiar();
      unfamiliar.scores.push_back(IsAlarm(v.kind) && !v.repeat && !familiar ? 1.0 : 0.0);
      alarms.scores.push_back(IsAlarm(v.kind) ? 1.0 : 0.0);
      new_alarms.scores.push_back(IsAlarm(v.kind) && !v.repeat ? 1.0 : 0.0);
      new_alarms_scored.scores.push_back(IsAlarm(v.kind) && !v.repeat && v.score >= 0.5 ? 1.0 : 0.0);
      bool novel = !IsAlarm(v.kind) && v.novelty > 0 && v.score >= 0.5;
      or_novel.scores.push_back((IsAlarm(v.kind) && !v.repeat) || novel ? 1.0 : 0.0);
    }
    peak_bytes = std::max(peak_bytes, det.MemoryBytes());
    peak_cad_contexts = std::max(peak_cad_contexts, cad.contexts());
    peak_cad_bytes = std::max(peak_cad_bytes, cad.MemoryBytes());
    peak_art_categories = std::max(peak_art_categories, art.categories());
    peak_art_bytes = std::max(peak_art_bytes, art.MemoryBytes());
    for (const auto& [a, b] : l.windows) {
      NabWindow w;
      size_t i = 0;
      while (i < l.rows.size() && l.rows[i].ts_ms < a) ++i;
      w.first = i;
      while (i + 1 < l.rows.size() && l.rows[i + 1].ts_ms <= b) ++i;
      w.last = i;
      f.windows.push_back(w);
    }
    alarms.name = new_alarms.name = f.name;
    alarms.windows = new_alarms.windows = f.windows;
    by_verdict.push_back(std::move(alarms));
    by_new_alarm.push_back(std::move(new_alarms));
    new_alarms_scored.name = f.name;
    new_alarms_scored.windows = f.windows;
    by_new_alarm_scored.push_back(std::move(new_alarms_scored));
    or_novel.name = f.name;
    or_novel.windows = f.windows;
    by_new_alarm_or_novel.push_back(std::move(or_novel));
    unfamiliar.name = f.name;
    unfamiliar.windows = f.windows;
    by_new_alarm_unfamiliar.push_back(std::move(unfamiliar));
    scored.push_back(std::move(f));
  }
  auto t1 = std::chrono::steady_clock::now();
  std::clock_t c1 = std::clock();

  std::printf("profile               score   threshold  windows detected  false_pos\n");
  for (const NabProfile& p : NabProfiles()) {
    NabResult r = ScoreNab(scored, p);
    std::printf("%-20s %6.2f   %9.6f  %7zu %8zu  %9zu\n", p.name.c_str(), r.normalized,
                r.threshold, r.windows, r.detected_windows, r.false_positives);
  }
  auto t2 = std::chrono::steady_clock::now();
  // By verdict: the threshold can only be "every alarm" (1) or "none" (scores 0).
  std::printf("by verdict (0/1)\n");
  for (const auto& [label, set] : {std::pair{"alarm", &by_verdict}, std::pair{"new alarm", &by_new_alarm},
                                   std::pair{"new alarm, score >= 0.5", &by_new_alarm_scored},
                                   std::pair{"new alarm or novel", &by_new_alarm_or_novel},
                                   std::pair{art_mode.empty() ? "new alarm, CAD not familiar" : "new alarm, ARTime not familiar",
                                             &by_new_alarm_unfamiliar}}) {
    if (cad_mode.empty() && art_mode.empty() && set == &by_new_alarm_unfamiliar) continue;  // needs CAD or ARTime
    for (const NabProfile& p : NabProfiles()) {
      NabResult r = ScoreNab(*set, p);
      std::printf("%-24s %-20s %6.2f   %9.6f  %7zu %8zu  %9zu\n", label, p.name.c_str(), r.normalized,
                  r.threshold, r.windows, r.detected_windows, r.false_positives);
    }
  }

  if (breakdown) {
    const NabProfile standard = NabProfiles().front();
    nab_breakdown::Print(scored, by_new_alarm, causes, sentences, standard, ScoreNab(scored, standard).threshold);
  }

  // NAB's results format, one CSV per data file.
  for (size_t k = 0; k < files.size(); ++k) {
    const Loaded& l = files[k];
    fs::path rel = l.rel;
    fs::path dir = out / rel.parent_path();
    fs::create_directories(dir);
    std::ofstream o(dir / ("dataworkers_" + rel.filename().string()));
    o << "timestamp,value,anomaly_score,label\n";
    for (size_t i = 0; i < l.rows.size(); ++i) {
      bool label = false;
      for (const NabWindow& w : scored[k].windows) label |= (i >= w.first && i <= w.last);
      char buf[160];
      std::snprintf(buf, sizeof buf, "%s,%.17g,%.17g,%d\n", FormatSeriesTimestamp(l.rows[i].ts_ms).c_str(),
                    l.rows[i].value, scored[k].scores[i], label ? 1 : 0);
      o << buf;
    }
  }

  double detect_s = std::chrono::duration<double>(t1 - t0).count();
  double all_s = std::chrono::duration<double>(t2 - t0).count();
  std::printf("files %zu, points %zu; detection %.3f s (%.2f us/point), detection + scoring %.3f s\n",
              files.size(), total_points, detect_s, 1e6 * detect_s / static_cast<double>(total_points),
              all_s);
  std::printf("detection CPU time %.3f s on one thread\n",
              static_cast<double>(c1 - c0) / CLOCKS_PER_SEC);
  std::printf("largest detector state %zu bytes\n", peak_bytes);
  if (!cad_mode.empty())
    std::printf("CAD OSE (%s): at most %zu contexts in a file, %zu bytes\n", cad_mode.c_str(),
                peak_cad_contexts, peak_cad_bytes);
  if (!art_mode.empty()) {
    std::printf("ARTime (%s): %.3f s of its own (%.2f us/point); at most %zu categories, %zu bytes in a file\n",
                art_mode.c_str(), art_seconds, 1e6 * art_seconds / static_cast<double>(total_points),
                peak_art_categories, peak_art_bytes);
    auto& c = art_categories_at_2000;
    auto& b = art_bytes_at_2000;
    std::sort(c.begin(), c.end());
    std::sort(b.begin(), b.end());
    if (!c.empty())
      std::printf("ARTime after 2,000 points (%zu files): categories min %zu, median %zu, max %zu; bytes min %zu, median %zu, max %zu\n",
                  c.size(), c.front(), c[c.size() / 2], c.back(), b.front(), b[b.size() / 2], b.back());
  }
  if (!cad_contexts_at_2000.empty()) {
    std::sort(cad_contexts_at_2000.begin(), cad_contexts_at_2000.end());
    const auto& c = cad_contexts_at_2000;
    std::printf("CAD OSE contexts after 2,000 points (%zu files): min %zu, median %zu, max %zu\n",
                c.size(), c.front(), c[c.size() / 2], c.back());
  }
  return 0;
}
