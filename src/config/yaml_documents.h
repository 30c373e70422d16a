// Every document of a YAML stream, read without yaml-cpp 0.7's endless loop. In the version
// Debian 12 ships, a token no document can start with (a lone `,` outside a flow collection, found
// by fuzzing the workspace loader) makes the parser report a new empty document on every call
// without consuming input, so YAML::LoadAll grows its list until memory runs out
// (jbeder/yaml-cpp#1040; fixed upstream after 0.8.0). Every multi-document read of untrusted YAML
// goes through here.
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace dw::config {

// The documents of `text`, as YAML::LoadAll returns them. Throws YAML::ParserException, as
// LoadAll does for a syntax error, naming the line and column where a document made no progress.
// The stream is parsed twice (first without building nodes), which costs little next to the
// loop it prevents.
std::vector<YAML::Node> LoadYamlDocuments(const std::string& text);

// Throws YAML::ParserException at the line and column of the first byte of `text` that is not
// UTF-8. YAML streams are Unicode, but yaml-cpp passes a scalar's bytes through unchecked, and
// what a reader keeps is later written as JSON, which must be UTF-8 (nlohmann's dump() throws on
// anything else: a workspace value that was not once ended `dw describe --format json` with an
// uncaught exception). Also at the first character YAML 1.2 does not allow in a stream (a control
// character other than tab, line feed and carriage return; U+FFFE, U+FFFF): yaml-cpp lets them
// through and turned a NUL into bytes that are not UTF-8. LoadYamlDocuments calls it first;
// single-document readers call it themselves.
void RequireUtf8Text(const std::string& text);

}  // namespace dw::config
