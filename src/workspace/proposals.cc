#include "workspace/proposals.h"

#include "platforms/kestra/kestra_client.h"

namespace dw::workspace {

Result<actions::ProposeOutcome> ProposeIncidentFixes(Services& services, const std::string& incident_id,
                                                     const std::string& author) {
  auto store = services.state();
  if (!store.ok()) return store.status();
  auto graph = services.graph();
  if (!graph.ok()) return graph.status();
  actions::DraftOptions options;
  options.author = author;
  options.current_flow_revision = KestraRevisionReader(services);
  return actions::ProposeForIncident(services.workspace(), **store, *graph, incident_id, services.clock(), options);
}

actions::FlowRevisionReader KestraRevisionReader(Services& services) {
  return [&services](const std::string& platform, const std::string& ns,
                     const std::string& id) -> Result<actions::FlowRevision> {
    const config::Workspace& ws = services.workspace();
    auto p = ws.platforms.find(platform);
    if (p == ws.platforms.end() || p->second.type != "kestra")
      return NotFound("the workspace has no kestra platform '" + platform + "'");
    platforms::kestra::KestraClient kestra(p->second, services.http());
    auto flow = kestra.GetFlow(ns, id);
    if (!flow.ok()) return flow.status();
    return actions::FlowRevision{flow->revision, flow->source};
  };
}

actions::VerifyOptions VerifyOptionsFor(Services& services, const std::string& actor, bool autonomous) {
  actions::VerifyOptions o;
  o.actor = actor;
  o.autonomous = autonomous;
  o.current_flow_revision = KestraRevisionReader(services);
  o.http = &services.http();
  return o;
}

}  // namespace dw::workspace
