// RecordAgentWrite: the attribution of an agent's tool call in the action log.
#include "actions/approval_log.h"

namespace dw::actions {

Result<int64_t> RecordAgentWrite(store::StateStore& store, const Clock& clock, const AgentWrite& write) {
  // The arguments are the agent's own words: kept to read later, but bounded so one call cannot
  // fill the log (a record of 10,000 points is summarised by its cut-off JSON and its size).
  constexpr size_t kMaxArguments = 4000;
  std::string text = write.arguments.dump();
  Json arguments = write.arguments;
  if (text.size() > kMaxArguments) {
    // Cut at a UTF-8 boundary so the stored text stays valid.
    size_t cut = kMaxArguments;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    arguments = Json{{"cut_after", cut}, {"characters", text.size()}, {"json", text.substr(0, cut)}};
  }
  return Record(store, clock, "tool_call", kAgentWritesSubject, "agent:" + write.agent,
                Json{{"client", write.client}, {"session", write.session}, {"tool", write.tool},
                     {"arguments", std::move(arguments)}});
}

}  // namespace dw::actions
