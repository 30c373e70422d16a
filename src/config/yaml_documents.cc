#include "config/yaml_documents.h"

#include <sstream>

#include <yaml-cpp/eventhandler.h>

namespace dw::config {
namespace {

// Builds nothing: only remembers where the current document started.
class DocumentStarts : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { start = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  YAML::Mark start;
};

}  // namespace

std::vector<YAML::Node> LoadYamlDocuments(const std::string& text) {
  {
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentStarts starts;
    bool first = true;
    YAML::Mark previous;
    while (parser.HandleNextDocument(starts)) {
      // A document that begins where the one before it began consumed nothing: the loop.
      if (!first && starts.start.pos == previous.pos)
        throw YAML::ParserException(starts.start, "unexpected token outside a flow collection (a stray ','?)");
      previous = starts.start;
      first = false;
    }
  }
  return YAML::LoadAll(text);
}

}  // namespace dw::config
