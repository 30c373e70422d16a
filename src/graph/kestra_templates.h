// Kestra's Pebble expressions ({{ ... }}, {% ... %}) in the values of a flow. A templated value is
// a template, not a name: what can be known without running the flow is resolved (`vars.x` from
// the flow's `variables`, `inputs.x` from its inputs' defaults, `flow.id`, `flow.namespace`,
// string literals and `~` joins of those); the rest stays a template, which the Kestra reader keeps
// as a marked placeholder rather than a name. A template that never closes is refused.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace dw::graph {

struct RenderedValue {
  enum class Kind {
    kLiteral,    // no template in it
    kResolved,   // every expression resolved statically
    kTemplated,  // at least one expression is only known at run time
    kBroken,     // a `{{` or `{%` never closes
  };
  Kind kind = Kind::kLiteral;
  // kLiteral, kResolved: the value. kTemplated: the value with each expression resolved, or (with
  // placeholders) replaced by PlaceholderOf(expression), or (without) kept as written.
  std::string text;
  std::string problem;  // kBroken: the sentence saying what never closes
};

class KestraTemplates {
 public:
  // `values` maps "vars.NAME", "inputs.NAME", "flow.id" and "flow.namespace" to their values.
  explicit KestraTemplates(std::map<std::string, std::string> values = {}) : values_(std::move(values)) {}

  // Renders `value`. With `placeholders`, an unresolved expression becomes its placeholder (for a
  // name); without, it is kept as written (for SQL, which the SQL reader scans with its templates).
  RenderedValue Render(std::string_view value, bool placeholders = true) const;

 private:
  // The value of one expression (the text between the braces), or false when it is run-time only.
  bool Evaluate(std::string_view expression, int depth, std::string* out) const;
  RenderedValue RenderAt(std::string_view value, bool placeholders, int depth) const;

  std::map<std::string, std::string> values_;
};

// True iff `value` holds a Pebble expression or tag opener.
bool HoldsTemplate(std::string_view value);

// The stand-in for an expression that is only known at run time, usable in every kind of id: '$'
// then the expression's words joined by '_' ("{{ inputs.table }}" -> "$inputs_table"), at most 48
// characters after the '$'.
std::string PlaceholderOf(std::string_view expression);

}  // namespace dw::graph
