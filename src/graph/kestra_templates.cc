#include "graph/kestra_templates.h"

#include <cctype>
#include <vector>

namespace dw::graph {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

// Splits `expr` on top-level `~` (Pebble's string join), outside quotes and brackets.
std::vector<std::string_view> JoinTerms(std::string_view expr) {
  std::vector<std::string_view> terms;
  char quote = 0;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < expr.size(); ++i) {
    char c = expr[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '(' || c == '[') {
      ++depth;
    } else if (c == ')' || c == ']') {
      --depth;
    } else if (c == '~' && depth == 0) {
      terms.push_back(expr.substr(start, i - start));
      start = i + 1;
    }
  }
  terms.push_back(expr.substr(start));
  return terms;
}

// "vars.x", "vars['x']", "vars[\"x\"]" -> "vars.x"; other shapes -> "".
std::string ReferenceKey(std::string_view term) {
  for (std::string_view root : {"vars", "inputs", "flow"}) {
    if (!term.starts_with(root)) continue;
    std::string_view rest = term.substr(root.size());
    std::string_view name;
    if (rest.size() > 1 && rest[0] == '.') {
      name = rest.substr(1);
    } else if (rest.size() > 4 && rest[0] == '[' && (rest[1] == '\'' || rest[1] == '"') && rest.back() == ']' &&
               rest[rest.size() - 2] == rest[1]) {
      name = rest.substr(2, rest.size() - 4);
    } else {
      continue;
    }
    for (char c : name)
      if (!IsWordChar(c)) return "";
    return std::string(root) + "." + std::string(name);
  }
  return "";
}

}  // namespace

bool HoldsTemplate(std::string_view value) {
  return value.find("{{") != std::string_view::npos || value.find("{%") != std::string_view::npos;
}

std::string PlaceholderOf(std::string_view expression) {
  std::string out = "$";
  bool gap = false;
  for (char c : expression) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      if (gap && out.size() > 1) out += '_';
      gap = false;
      out += c;
    } else {
      gap = true;
    }
    if (out.size() > 49) break;
  }
  if (out.size() > 49) out.resize(49);
  while (out.size() > 1 && out.back() == '_') out.pop_back();
  return out.size() == 1 ? "$template" : out;
}

bool KestraTemplates::Evaluate(std::string_view expression, int depth, std::string* out) const {
  std::string result;
  for (std::string_view term : JoinTerms(expression)) {
    term = Trim(term);
    // render(x) renders a value that is itself a template: the same as x here.
    if (term.starts_with("render(") && term.ends_with(")")) term = Trim(term.substr(7, term.size() - 8));
    if (term.size() >= 2 && (term.front() == '\'' || term.front() == '"') && term.back() == term.front() &&
        term.substr(1, term.size() - 2).find(term.front()) == std::string_view::npos) {
      result += term.substr(1, term.size() - 2);
      continue;
    }
    std::string key = ReferenceKey(term);
    auto it = key.empty() ? values_.end() : values_.find(key);
    if (it == values_.end()) return false;
    if (HoldsTemplate(it->second)) {
      // A variable whose value is a template: resolved as far as it goes, a few levels deep.
      if (depth >= 3) return false;
      RenderedValue inner = RenderAt(it->second, false, depth + 1);
      if (inner.kind != RenderedValue::Kind::kResolved) return false;
      result += inner.text;
    } else {
      result += it->second;
    }
  }
  *out = std::move(result);
  return true;
}

RenderedValue KestraTemplates::Render(std::string_view value, bool placeholders) const {
  return RenderAt(value, placeholders, 0);
}

RenderedValue KestraTemplates::RenderAt(std::string_view value, bool placeholders, int depth) const {
  RenderedValue r;
  if (!HoldsTemplate(value)) {
    r.text = std::string(value);
    return r;
  }
  r.kind = RenderedValue::Kind::kResolved;
  size_t i = 0;
  while (i < value.size()) {
    size_t open = value.find('{', i);
    while (open != std::string_view::npos && open + 1 < value.size() && value[open + 1] != '{' &&
           value[open + 1] != '%')
      open = value.find('{', open + 1);
    if (open == std::string_view::npos || open + 1 >= value.size()) {
      r.text += value.substr(i);
      break;
    }
    r.text += value.substr(i, open - i);
    const bool tag = value[open + 1] == '%';
    const char* close = tag ? "%}" : "}}";
    size_t end = value.find(close, open + 2);
    if (end == std::string_view::npos) {
      std::string shown(value.substr(open, 40));
      r.kind = RenderedValue::Kind::kBroken;
      r.problem = "the template '" + shown + (value.size() - open > 40 ? "...'" : "'") + " never closes (no '" +
                  close + "')";
      r.text.clear();
      return r;
    }
    std::string_view expression = Trim(value.substr(open + 2, end - open - 2));
    std::string resolved;
    if (!tag && Evaluate(expression, depth, &resolved)) {
      r.text += resolved;
    } else {
      r.kind = RenderedValue::Kind::kTemplated;
      r.text += placeholders ? PlaceholderOf(expression) : std::string(value.substr(open, end + 2 - open));
    }
    i = end + 2;
  }
  return r;
}

}  // namespace dw::graph
