#include "workspace/services.h"

#include <system_error>

#include "graph/ingest.h"
#include "workspace/describe.h"

namespace dw::workspace {

std::shared_ptr<Services> Services::Load(const std::filesystem::path& dir, const Clock& clock) {
  auto s = std::make_shared<Services>();
  std::error_code ec;
  s->dir_ = std::filesystem::absolute(dir, ec);
  if (ec) s->dir_ = dir;
  s->clock_ = &clock;
  s->http_ = net::MakeCurlHttpClient();
  if (!std::filesystem::exists(s->dir_ / config::kWorkspaceFileName, ec)) {
    s->workspace_status_ = NotFound("no " + std::string(config::kWorkspaceFileName) + " in " +
                                    s->dir_.string() +
                                    "; create one with `dw init DIR`, or select a workspace with "
                                    "--workspace DIR or DW_WORKSPACE");
    return s;
  }
  auto loaded = config::LoadWorkspace(s->dir_);
  s->config_errors_ = loaded.errors;
  if (loaded.workspace) {
    s->workspace_ = std::move(loaded.workspace);
    return s;
  }
  std::string msg = "the workspace has " + std::to_string(loaded.errors.size()) +
                    " error(s); run `dw validate` to see them:";
  for (const auto& e : loaded.errors) msg += "\n" + e.ToString();
  s->workspace_status_ = InvalidArgument(msg);
  return s;
}

const Json& Services::configuration_description() {
  std::call_once(described_once_,
                 [this] { configuration_description_ = DescribeConfiguration(*workspace_); });
  return configuration_description_;
}

Result<store::StateStore*> Services::state() {
  if (!workspace_status_.ok()) return workspace_status_;
  std::lock_guard<std::mutex> lock(state_mu_);
  if (!state_) {
    // The store stamps its rows (written_at, updated_at) from the command's clock, so `--now` and a
    // replay's simulated time reach them too.
    auto opened = store::OpenStateStore(workspace_->state, *clock_);
    if (!opened.ok()) return opened.status();
    state_ = std::move(opened).value();
  }
  return state_.get();
}

Result<graph::ContextGraph*> Services::graph() {
  auto store = state();
  if (!store.ok()) return store.status();
  std::lock_guard<std::mutex> lock(graph_mu_);
  if (!graph_) {
    auto loaded = graph::ContextGraph::Load(*store, *clock_);
    if (!loaded.ok()) return loaded.status();
    graph_ = std::move(loaded).value();
    graph_->SetWarehouses(graph::KnownWarehousesOf(*workspace_));
    auto ingested = graph::Ingest(*workspace_, *http_, *graph_, graph::IngestSource::Workspace());
    if (!ingested.ok()) return ingested.status();
    graph_warnings_ = (*ingested)["warnings"].get<std::vector<std::string>>();
    loaded_graph_.store(graph_.get(), std::memory_order_release);
    return graph_.get();
  }
  DW_RETURN_IF_ERROR(graph_->Refresh());
  return graph_.get();
}

Result<graph::ContextGraph*> Services::graph_for_write() {
  if (graph::ContextGraph* g = loaded_graph_.load(std::memory_order_acquire)) return g;
  return graph();
}

std::vector<std::string> Services::graph_warnings() {
  std::lock_guard<std::mutex> lock(graph_mu_);
  return graph_warnings_;
}

}  // namespace dw::workspace
