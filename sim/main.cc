// dw-sim: serves one simulated platform on loopback from a script, until killed.
//   dw-sim PLATFORM --listen 127.0.0.1:PORT --script FILE
// PLATFORM is flink, kestra, kafka-connect or schema-registry. Test and demo infrastructure.
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "sim/sim_support.h"

int main(int argc, char** argv) {
  CLI::App app{"dw-sim: a loopback simulator of Flink, Kestra, Kafka Connect or Schema Registry"};
  std::string platform, listen = "127.0.0.1:0", script_path;
  app.add_option("PLATFORM", platform, "flink, kestra, kafka-connect or schema-registry")->required();
  app.add_option("--listen", listen, "127.0.0.1:PORT (loopback only)");
  app.add_option("--script", script_path, "JSON script: what the platform reports, and when")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  auto p = dw::sim::ParsePlatform(platform);
  if (!p) {
    std::cerr << "dw-sim: unknown platform '" << platform
              << "'; use flink, kestra, kafka-connect or schema-registry\n";
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
  auto sim = dw::sim::RunningSim::Start(*p, script, port);
  if (!sim.ok()) {
    std::cerr << "dw-sim: " << script_path << ": " << sim.status().message() << "\n";
    return 1;
  }
  std::cout << "dw-sim " << platform << " listening on " << (*sim)->url() << std::endl;
  (*sim)->Wait();
  return 0;
}
