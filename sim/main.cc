// dw-sim: serves one simulated platform on loopback from a script, until killed.
//   dw-sim PLATFORM --listen 127.0.0.1:PORT --script FILE
// PLATFORM is flink, kestra, kafka-connect, schema-registry, bigquery or snowflake, or a notification receiver: slack,
// teams, opsgenie, pagerduty or smtp (which prints each accepted message as a JSON line). Test and
// demo infrastructure.
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "sim/sim_support.h"
#include "sim/smtp_receiver.h"

int main(int argc, char** argv) {
  CLI::App app{"dw-sim: a loopback simulator of Flink, Kestra, Kafka Connect, Schema Registry, BigQuery or Snowflake, "
               "or a receiver of Slack, Teams, Opsgenie, PagerDuty or SMTP"};
  std::string platform, listen = "127.0.0.1:0", script_path;
  app.add_option("PLATFORM", platform,
                 "flink, kestra, kafka-connect, schema-registry, bigquery, snowflake, slack, teams, opsgenie, pagerduty or smtp")
      ->required();
  app.add_option("--listen", listen, "127.0.0.1:PORT (loopback only)");
  app.add_option("--script", script_path, "JSON script: what the platform reports, and when")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  auto p = dw::sim::ParsePlatform(platform);
  if (!p && platform != "smtp") {
    std::cerr << "dw-sim: unknown platform '" << platform
              << "'; use flink, kestra, kafka-connect, schema-registry, bigquery, snowflake, slack, teams, opsgenie, "
                 "pagerduty or smtp\n";
    return 2;
  }
  auto colon = listen.rfind(':');
  std::string host = colon == std::string::npos ? "" : listen.substr(0, colon);
  if (host != "127.0.0.1" && host != "localhost") {
    std::cerr << "dw-sim: --listen must be 127.0.0.1:PORT (simulators serve loopback only)\n";
    return 2;
  }
  int port = 0;
  try {
    port = std::stoi(listen.substr(colon + 1));
  } catch (const std::exception&) {
    std::cerr << "dw-sim: bad port in --listen " << listen << "\n";
    return 2;
  }
  std::ifstream in(script_path);
  if (!in) {
    std::cerr << "dw-sim: cannot read script " << script_path << "\n";
    return 2;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  dw::Json script = dw::Json::parse(ss.str(), nullptr, false);
  if (script.is_discarded()) {
    std::cerr << "dw-sim: " << script_path << " is not valid JSON\n";
    return 2;
  }
  if (!p) {
    auto smtp = dw::sim::SmtpReceiver::Start(script, port);
    if (!smtp.ok()) {
      std::cerr << "dw-sim: " << script_path << ": " << smtp.status().message() << "\n";
      return 1;
    }
    (*smtp)->OnMessage([](const dw::Json& m) { std::cout << m.dump() << std::endl; });
    std::cout << "dw-sim smtp listening on " << (*smtp)->url() << std::endl;
    (*smtp)->Wait();
    return 0;
  }
  auto sim = dw::sim::RunningSim::Start(*p, script, port);
  if (!sim.ok()) {
    std::cerr << "dw-sim: " << script_path << ": " << sim.status().message() << "\n";
    return 1;
  }
  std::cout << "dw-sim " << platform << " listening on " << (*sim)->url() << std::endl;
  (*sim)->Wait();
  return 0;
}
