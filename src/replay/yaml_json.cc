#include "replay/yaml_json.h"

#include <regex>

namespace dw::replay {

Json YamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      Json out = Json::object();
      for (auto it = node.begin(); it != node.end(); ++it) out[it->first.as<std::string>()] = YamlToJson(it->second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      Json out = Json::array();
      for (const auto& item : node) out.push_back(YamlToJson(item));
      return out;
    }
    case YAML::NodeType::Scalar: {
      std::string s = node.as<std::string>();
      if (node.Tag() == "!") return s;  // quoted: a string whatever it looks like
      static const std::regex kInt("[-+]?[0-9]+"), kFloat("[-+]?([0-9]*\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
      if (s == "true") return true;
      if (s == "false") return false;
      if (s == "null" || s == "~") return nullptr;
      if (std::regex_match(s, kInt)) {
        try {
          return std::stoll(s);
        } catch (const std::exception&) {
        }
      }
      if (std::regex_match(s, kFloat)) return std::stod(s);
      return s;
    }
    default:
      return nullptr;
  }
}

}  // namespace dw::replay
