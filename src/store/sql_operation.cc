#include "store/sql_operation.h"

namespace dw::store {

std::string SqlOperation(const std::string& sql) {
  std::string words;
  for (char c : sql) {
    if (c == '(' || c == ';' || words.size() >= 60) break;
    const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (space) {
      if (!words.empty() && words.back() != ' ') words.push_back(' ');
    } else {
      words.push_back(c);
    }
  }
  for (const char* stop : {" VALUES", " SET ", " WHERE ", " SELECT "}) {
    size_t at = words.find(stop, 1);
    if (at != std::string::npos) words.erase(at);
  }
  while (!words.empty() && words.back() == ' ') words.pop_back();
  return words;
}

}  // namespace dw::store
