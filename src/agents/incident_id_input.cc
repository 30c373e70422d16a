#include "agents/incident_id_input.h"

namespace dw::agents {

Json IncidentIdInputSchema() {
  return Json::parse(R"js({
    "type": "object",
    "properties": {
      "incident_id": {"type": "string", "minLength": 1, "maxLength": 200,
                      "description": "e.g. inc-20261124-1405-3fa9c1 (get_incident_history lists them)"}
    },
    "required": ["incident_id"],
    "additionalProperties": false
  })js");
}

}  // namespace dw::agents
