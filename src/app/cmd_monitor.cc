// `dw monitor score FILE.csv`: the product's detector over any `timestamp,value` file.
#include <cmath>
#include <fstream>
#include <iostream>

#include "app/command_start.h"
#include "app/commands.h"
#include "workspace/incident_windows.h"
#include "workspace/services.h"
#include "observe/metrics/metric_marks.h"
#include "observe/metrics/metric_service.h"
#include "observe/metrics/score_series.h"

namespace dw::app {

int CmdMonitorScore(const GlobalOptions&, const MonitorScoreOptions& o) {
  observe::metrics::DetectorOptions d;
  auto season = observe::metrics::ParseSeasonality(o.seasonality);
  if (!season.ok()) {
    std::cerr << "dw monitor score: --seasonality: " << season.status().message() << "\n";
    return 2;
  }
  d.seasonality = *season;
  auto direction = observe::metrics::ParseDirection(o.direction);
  if (!direction.ok()) {
    std::cerr << "dw monitor score: --direction: " << direction.status().message() << "\n";
    return 2;
  }
  d.direction = *direction;
  if (o.sensitivity) d.sensitivity = *o.sensitivity;
  if (Status st = observe::metrics::ValidateDetectorOptions(d); !st.ok()) {
    std::cerr << "dw monitor score: " << st.message() << "\n";
    return 2;
  }
  auto rows = observe::metrics::ReadSeriesCsv(o.file);
  if (!rows.ok()) {
    std::cerr << "dw monitor score: " << rows.status().message() << "\n";
    return 2;
  }
  std::ofstream file;
  if (!o.out.empty()) {
    file.open(o.out);
    if (!file) {
      std::cerr << "dw monitor score: cannot write " << o.out << "\n";
      return 2;
    }
  }
  std::ostream& out = o.out.empty() ? std::cout : file;
  observe::metrics::ScoreSummary s = observe::metrics::WriteScoredSeries(*rows, d, out);
  out.flush();
  if (!out) {
    std::cerr << "dw monitor score: writing the result failed\n";
    return 2;
  }
  std::cerr << s.points << " points: " << s.anomalies << " anomalous, " << s.insufficient
            << " before enough history, " << s.invalid
            << " ignored (NaN, infinite or out of order); seasonality "
            << observe::metrics::SeasonalityName(s.seasonality) << "\n";
  return 0;
}

}  // namespace dw::app

namespace dw::app {

int CmdMonitorPlot(const GlobalOptions& g, const std::string& metric, const std::string& out_path) {
  StartedCommand start = StartCommand(g, "monitor plot");
  if (!start) return start.exit_code;
  const auto& services = start.services;
  auto settings = observe::metrics::SettingsForMetric(services->workspace(), metric);
  if (!settings.ok()) {
    std::cerr << "dw monitor plot: " << settings.status().message() << "\n";
    return 2;
  }
  auto store = services->state();
  if (!store.ok()) {
    std::cerr << "dw monitor plot: state store: " << store.status().message() << "\n";
    return 2;
  }
  if (Status known = observe::metrics::CheckKnownMetric(services->workspace(), **store, metric); !known.ok()) {
    std::cerr << "dw monitor plot: " << known.message() << "\n";
    return 2;
  }
  auto svg = observe::metrics::PlotMetric(**store, metric, *settings, services->clock(),
                                          workspace::IncidentWindows(**store));
  if (!svg.ok()) {
    std::cerr << "dw monitor plot: " << svg.status().message() << "\n";
    return 2;
  }
  std::ofstream out(out_path);
  out << *svg;
  out.close();
  if (!out) {
    std::cerr << "dw monitor plot: cannot write " << out_path << "\n";
    return 2;
  }
  std::cerr << "wrote " << out_path << "\n";
  return 0;
}

}  // namespace dw::app
