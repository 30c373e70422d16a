// Our own data-incident suite: seeded synthetic metrics with the incidents data teams meet, run
// through the product's streaming detector (default options, seasonality auto).
//
// Series: hourly (daily and weekly seasonality, 8 weeks) and daily (weekly seasonality, 2 years),
// each with trend and noise. Each series gets one of:
//   drop      the value falls to 9% of normal for 6 points
//   drift     the value slides down steadily, to -40% over 72 points
//   stuck     the value freezes (the same number repeated) for 12 points
//   doubling  the value doubles for 3 points (a duplicate load)
//   null_rate a null-rate series (~0.5%) jumps to 20% for 6 points
//   missing   6 expected points never arrive (judged at each due time from the Clock's view)
//   holiday   benign: a day at 30% of normal, marked expected by a person
//   level     benign: a permanent +40% level change, marked expected for its first day
// Reported per kind: recall within 2 points and at all (within the incident), median and max
// delay in points (for drifts also its quantiles), and false alarms (new alarm episodes outside
// incidents) per series-month; and the false alarms the context novelty would add as an alarm.
//
// usage: incident_suite_bench [SERIES_PER_KIND] [SEED]   (default 100, 20261130)
// Environment (bench diagnostics only): DW_DRIFT_TRACE=1 prints one line per drift (below),
// DW_DRIFT_RAMP_Z=Z turns the detector's ramp test on.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "observe/metrics/detector.h"
#include "bench/bench_rng.h"

using namespace dw::observe::metrics;

namespace {

constexpr int64_t kHour = 3600LL * 1000;
constexpr int64_t kDay = 24 * kHour;
constexpr int64_t kStart = 1735689600000LL;  // 2025-01-01 00:00 UTC

using dw::bench::Rng;

struct Series {
  std::vector<int64_t> ts;
  std::vector<double> value;
  std::vector<bool> present;   // false: the point never arrives
  std::vector<bool> expected;  // marked expected by a person
  size_t start = 0, end = 0;   // the incident (or benign event) on [start, end)
  bool benign = false;
  // For the drift trace (DW_DRIFT_TRACE): the noise level and the series without noise or incident.
  double noise = 0;
  std::vector<double> clean;
};

Series Generate(const std::string& kind, bool hourly, Rng& rng) {
  Series s;
  size_t n = hourly ? 24 * 7 * 8 : 730;
  int64_t step = hourly ? kHour : kDay;
  double base = 1000 * (0.5 + rng.Uniform());
  double trend = (rng.Uniform() - 0.5) * 0.4 / static_cast<double>(n);  // +-20% over the series
  double daily_amp = hourly ? 0.3 + 0.4 * rng.Uniform() : 0;
  double weekly_amp = 0.1 + 0.3 * rng.Uniform();
  double noise = 0.02 + 0.04 * rng.Uniform();
  bool null_rate = kind == "null_rate";
  for (size_t i = 0; i < n; ++i) {
    int64_t t = kStart + static_cast<int64_t>(i) * step;
    double hour = static_cast<double>((t / kHour) % 24);
    int64_t dow = ((t / kDay) + 3) % 7;
    double season = 1 + daily_amp * std::sin(2 * M_PI * (hour - 9) / 24.0) +
                    (dow >= 5 ? -weekly_amp : 0);
    double c = base * (1 + trend * static_cast<double>(i)) * season;
    double v = c * (1 + noise * rng.Normal());
    s.clean.push_back(c);
    if (null_rate) v = std::max(0.0, 0.5 + 0.1 * rng.Normal());  // percent of rows null
    s.ts.push_back(t);
    s.value.push_back(v);
  }
  s.noise = noise;
  s.present.assign(n, true);
  s.expected.assign(n, false);
  size_t warm = hourly ? 24 * 7 * 4 : 365;
  s.start = warm + static_cast<size_t>(rng.Uniform() * static_cast<double>(n - warm - 80));
  auto lasting = [&](size_t len) { s.end = std::min(n, s.start + len); };
  if (kind == "drop") {
    lasting(6);
    for (size_t i = s.start; i < s.end; ++i) s.value[i] *= 0.09;
  } else if (kind == "drift") {
    lasting(72);
    for (size_t i = s.start; i < n; ++i)
      s.value[i] *= 1 - 0.4 * std::min(1.0, static_cast<double>(i - s.start + 1) / 72.0);
  } else if (kind == "stuck") {
    lasting(12);
    for (size_t i = s.start; i < s.end; ++i) s.value[i] = s.value[s.start - 1];
  } else if (kind == "doubling") {
    lasting(3);
    for (size_t i = s.start; i < s.end; ++i) s.value[i] *= 2;
  } else if (kind == "null_rate") {
    lasting(6);
    for (size_t i = s.start; i < s.end; ++i) s.value[i] = 20 + rng.Normal();
  } else if (kind == "missing") {
    lasting(6);
    for (size_t i = s.start; i < s.end; ++i) s.present[i] = false;
  } else if (kind == "holiday") {
    s.benign = true;
    lasting(hourly ? 24 : 1);
    for (size_t i = s.start; i < s.end; ++i) {
      s.value[i] *= 0.3;
      s.expected[i] = true;
    }
  } else if (kind == "level") {
    s.benign = true;
    lasting(hourly ? 24 : 1);
    for (size_t i = s.start; i < n; ++i) s.value[i] *= 1.4;
    for (size_t i = s.start; i < s.end; ++i) s.expected[i] = true;
  }
  return s;
}

struct Outcome {
  bool detected = false;
  size_t delay = 0;            // points from the incident's first point to the first alarm
  size_t false_alarms = 0;     // new alarm episodes outside the incident
  // Points judged normal whose context novelty lifts their score to 0.5 or more, outside the
  // incident: the false alarms a novelty alarm would add (measured only; not an alarm today).
  size_t novelty_alarms = 0;
  double months = 0;
};

// DW_DRIFT_TRACE=1: one line per drift series on stderr, with what decides its delay: the noise,
// the seasonality in use when it starts, the residuals' robust spread (as a share of the level),
// the drift test's long-run spread of the deviations, how much of the drift the baseline has
// learnt (absorption: the share of the drift's depth the baseline has followed, averaged over its
// points 13 to 24), the mean deviation of its first 24 points, the CUSUM at 12, 24 and 48 points,
// and the delay. A bench diagnostic only.
bool DriftTrace() {
  const char* e = std::getenv("DW_DRIFT_TRACE");
  return e && *e && std::string(e) != "0";
}

// DW_DRIFT_RAMP_Z=Z: runs the detector with DetectorOptions::drift_ramp_z = Z (the ramp test,
// off in the product); a bench option for measuring it.
DetectorOptions SuiteOptions() {
  DetectorOptions o;
  if (const char* e = std::getenv("DW_DRIFT_RAMP_Z"); e && *e) o.drift_ramp_z = std::atof(e);
  return o;
}

Outcome Run(const Series& s, bool hourly, bool trace) {
  StreamingDetector det("m", SuiteOptions());
  std::string season_at_start;
  double scale_rel = 0, spread = 0, centre = 0, absorbed = 0, dev24 = 0, cusum[3] = {0, 0, 0};
  int absorbed_n = 0;
  std::string switches;  // "index:seasonality" at each change of the seasonality in use
  Outcome o;
  int64_t step = hourly ? kHour : kDay;
  o.months = static_cast<double>(s.ts.size()) * static_cast<double>(step) / (30.0 * kDay);
  bool missing_alarm = false;
  for (size_t i = 0; i < s.ts.size(); ++i) {
    bool in_incident = i >= s.start && i < s.end + (s.benign ? 0 : 2);
    bool alarm = false;
    bool fresh = false;
    if (!s.present[i]) {
      // The point is due and has not come: what the watch loop asks at each due time.
      if (det.MissingPointsAt(s.ts[i] + step / 2) > 0) {
        alarm = true;
        fresh = !missing_alarm;
        missing_alarm = true;
      }
    } else {
      missing_alarm = false;
      Verdict v = det.Observe(s.ts[i], s.value[i], s.expected[i]);
      alarm = IsAlarm(v.kind);
      if (trace && SeasonalityName(det.active_seasonality()) != (switches.empty() ? std::string("none") : switches.substr(switches.rfind(':') + 1)))
        switches += " " + std::to_string(i) + ":" + SeasonalityName(det.active_seasonality());
      if (trace && i >= s.start) {
        size_t k = i - s.start + 1;  // the drift's k-th point
        StreamingDetector::DriftState d = det.drift_state();
        if (k == 1) {
          season_at_start = SeasonalityName(det.active_seasonality());
          scale_rel = d.scale / s.clean[i];
          spread = d.spread;
          centre = d.mean;
        }
        double depth = 0.4 * std::min(1.0, static_cast<double>(k) / 72.0);
        if (k >= 13 && k <= 24 && std::isfinite(v.expected)) {
          absorbed += (s.clean[i] - v.expected) / (s.clean[i] * depth);
          ++absorbed_n;
        }
        if (k <= 24) dev24 += v.deviation / 24.0;
        if (k == 12) cusum[0] = d.down;
        if (k == 24) cusum[1] = d.down;
        if (k == 48) cusum[2] = d.down;
      }
      fresh = alarm && !v.repeat;
      if (!alarm && v.novelty > 0 && v.score >= 0.5 && !(in_incident && !s.benign)) ++o.novelty_alarms;
    }
    if (!alarm) continue;
    if (in_incident && !s.benign) {
      if (!o.detected) {
        o.detected = true;
        o.delay = i - s.start;
      }
    } else if (fresh) {
      ++o.false_alarms;
    }
  }
  if (trace)
    std::fprintf(stderr,
                 "drift-trace %s noise %.3f season %-12s scale/level %.3f spread %.2f centre %+.2f absorbed %.2f "
                 "meandev24 %+.2f cusum12 %.1f cusum24 %.1f cusum48 %.1f delay %s start %zu switches%s\n",
                 hourly ? "hourly" : "daily", s.noise, season_at_start.c_str(), scale_rel, spread, centre,
                 absorbed_n ? absorbed / absorbed_n : 0.0, dev24, cusum[0], cusum[1], cusum[2],
                 o.detected ? std::to_string(o.delay).c_str() : "none", s.start, switches.c_str());
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  int per_kind = argc > 1 ? std::atoi(argv[1]) : 100;
  uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 20261130ULL;
  const char* kinds[] = {"drop", "drift", "stuck", "doubling", "null_rate", "missing", "holiday", "level"};
  std::printf("%-10s %-6s %6s %9s %9s %7s %7s %12s\n", "incident", "grain", "series", "recall<=2",
              "recall", "p50dly", "maxdly", "FA/ser-month");
  Rng rng{seed};
  double fa_by_grain[2] = {0, 0}, months_by_grain[2] = {0, 0};  // [hourly, daily]
  double novelty_by_grain[2] = {0, 0};
  for (const char* kind : kinds) {
    for (bool hourly : {true, false}) {
      size_t within2 = 0, detected = 0, fa = 0;
      double months = 0;
      std::vector<size_t> delays;
      for (int k = 0; k < per_kind; ++k) {
        Series s = Generate(kind, hourly, rng);
        Outcome o = Run(s, hourly, DriftTrace() && std::string(kind) == "drift");
        fa += o.false_alarms;
        novelty_by_grain[hourly ? 0 : 1] += static_cast<double>(o.novelty_alarms);
        months += o.months;
        if (o.detected) {
          ++detected;
          delays.push_back(o.delay);
          if (o.delay <= 2) ++within2;
        }
      }
      std::sort(delays.begin(), delays.end());
      if (std::string(kind) == "drift" && !delays.empty()) {
        // A slow drift's delay is spread wide: its distribution, not only its median.
        auto at = [&](double q) { return delays[static_cast<size_t>(q * static_cast<double>(delays.size() - 1))]; };
        std::printf("  (drift %s delays of the %zu found: p10 %zu, p25 %zu, p50 %zu, p75 %zu, p90 %zu)\n",
                    hourly ? "hourly" : "daily", delays.size(), at(0.1), at(0.25), at(0.5), at(0.75), at(0.9));
      }
      bool benign = std::string(kind) == "holiday" || std::string(kind) == "level";
      fa_by_grain[hourly ? 0 : 1] += static_cast<double>(fa);
      months_by_grain[hourly ? 0 : 1] += months;
      if (benign) {
        std::printf("%-10s %-6s %6d %9s %9s %7s %7s %12.3f\n", kind, hourly ? "hourly" : "daily",
                    per_kind, "-", "-", "-", "-", static_cast<double>(fa) / months);
      } else {
        std::printf("%-10s %-6s %6d %9.3f %9.3f %7s %7s %12.3f\n", kind, hourly ? "hourly" : "daily",
                    per_kind, static_cast<double>(within2) / per_kind,
                    static_cast<double>(detected) / per_kind,
                    delays.empty() ? "-" : std::to_string(delays[delays.size() / 2]).c_str(),
                    delays.empty() ? "-" : std::to_string(delays.back()).c_str(),
                    static_cast<double>(fa) / months);
      }
    }
  }
  std::printf("false alarms per series-month over all kinds: hourly %.3f, daily %.3f (seed %llu)\n",
              fa_by_grain[0] / months_by_grain[0], fa_by_grain[1] / months_by_grain[1],
              static_cast<unsigned long long>(seed));
  std::printf("if the context novelty were an alarm too, it would add false alarms per series-month: "
              "hourly %.3f, daily %.3f\n",
              novelty_by_grain[0] / months_by_grain[0], novelty_by_grain[1] / months_by_grain[1]);
  return 0;
}
