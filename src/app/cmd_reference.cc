// `dw reference --out DIR`: the reference pages generated from the code itself, so they cannot
// drift from it: every command and option (from the CLI definitions), every workspace key (from the
// workspace schema the validator uses) and every MCP tool (from the agents' catalogs, with their
// schemas and annotations). docs/reference/ holds the committed copy; a test regenerates it and
// fails on any difference.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "agents/agents.h"
#include "app/commands.h"
#include "config/workspace_schema.h"

namespace dw::app {
namespace {

// A table cell: pipes escaped, new lines folded.
std::string Cell(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

// ---- commands ----

std::string OptionName(const CLI::Option& o) {
  return o.nonpositional() ? o.get_name(false, true) : o.get_name(true, false);
}

void Command(const CLI::App& cmd, const std::string& path, std::ostringstream& out) {
  std::vector<const CLI::Option*> options = cmd.get_options([](const CLI::Option* o) {
    return o->get_name(false, true) != "-h,--help" && o->get_name(false, true) != "--version";
  });
  std::vector<const CLI::App*> subs = cmd.get_subcommands([](const CLI::App*) { return true; });
  if (!path.empty()) {
    out << "## `dw " << path << "`\n\n" << cmd.get_description() << "\n\n";
    if (!options.empty()) {
      out << "| option | takes | required | default | what |\n|---|---|---|---|---|\n";
      for (const CLI::Option* o : options)
        out << "| `" << Cell(OptionName(*o)) << "` | "
            << (o->get_expected_min() == 0 ? "flag" : Cell(o->get_type_name())) << " | "
            << (o->get_required() ? "yes" : "") << " | " << Cell(o->get_default_str()) << " | "
            << Cell(o->get_description()) << " |\n";
      out << "\n";
    }
    if (!subs.empty()) {
      out << "Subcommands:";
      for (const CLI::App* s : subs) out << " `" << s->get_name() << "`";
      out << "\n\n";
    }
  }
  for (const CLI::App* s : subs) Command(*s, path.empty() ? s->get_name() : path + " " + s->get_name(), out);
}

std::string CommandsPage(const CLI::App& app) {
  std::ostringstream out;
  out << "# Command reference\n\n"
         "Generated from the command line's own definitions by `dw reference --out docs/reference`; do not\n"
         "edit. What each command does, its exit codes and output: [cli.md](../cli.md).\n\n"
         "Global options, accepted before or after the command:\n\n"
         "| option | takes | default | what |\n|---|---|---|---|\n";
  for (const CLI::Option* o : app.get_options([](const CLI::Option* o) { return o->get_name(false, true) != "-h,--help"; }))
    out << "| `" << Cell(OptionName(*o)) << "` | " << (o->get_expected_min() == 0 ? "flag" : Cell(o->get_type_name()))
        << " | " << Cell(o->get_default_str()) << " | " << Cell(o->get_description()) << " |\n";
  out << "\n";
  Command(app, "", out);
  return out.str();
}

// ---- workspace keys ----

std::string Secret(config::SecretKind k) {
  switch (k) {
    case config::SecretKind::kNone: return "";
    case config::SecretKind::kWhole: return "secret";
    case config::SecretKind::kConnection: return "secret (its password)";
    case config::SecretKind::kEmbedded: return "secret (an embedded password)";
  }
  return "";
}

std::string Takes(const config::ValueSchema& s) {
  std::string out = config::DescribeType(s);
  if (s.type == config::ValueType::kList && s.element) out = "a list of " + config::DescribeType(*s.element);
  if (s.type == config::ValueType::kMap && s.element)
    out = "a mapping of names to " + config::DescribeType(*s.element);
  if (s.minimum) {
    std::ostringstream m;
    m << *s.minimum;
    out += ", at least " + m.str();
  }
  if (s.exact_items >= 0) out += ", exactly " + std::to_string(s.exact_items) + " items";
  return out;
}

void Keys(const config::ValueSchema& s, const std::string& path, std::ostringstream& out) {
  for (const config::Field& f : s.fields) {
    const std::string key = path.empty() ? f.key : path + "." + f.key;
    out << "| `" << Cell(key) << "` | " << Cell(Takes(f.value)) << " | " << (f.required ? "yes" : "") << " | "
        << Secret(f.value.secret) << " |\n";
    Keys(f.value, key, out);
  }
  for (const auto& group : s.exactly_one_of) {
    std::string names;
    for (const auto& k : group) names += (names.empty() ? "" : ", ") + ("`" + k + "`");
    out << "| `" << Cell(path) << "` | exactly one of " << names << " | | |\n";
  }
  if (s.element) {
    const char* step = s.type == config::ValueType::kList ? "[]" : ".<name>";
    Keys(*s.element, path + step, out);
  }
}

std::string KeysPage() {
  std::ostringstream out;
  out << "# Workspace key reference\n\n"
         "Generated from the schema `dw validate` checks a workspace against (`src/config/workspace_schema.cc`)\n"
         "by `dw reference --out docs/reference`; do not edit. Every key, the values it takes, whether it\n"
         "is required and whether it is kept out of logs as a secret. `[]` is an item of a list, `<name>` a\n"
         "name you choose. What each key means, its default and examples: [workspace.md](../workspace.md).\n\n"
         "| key | takes | required | secret |\n|---|---|---|---|\n";
  Keys(config::WorkspaceSchema(), "", out);
  return out.str();
}

// ---- tools ----

std::string ToolsPage() {
  // The catalogs need services only to call the tools, never to list them: a folder with no
  // workspace gives services that explain that, which is enough here.
  auto services = workspace::Services::Load(std::filesystem::path("/nonexistent/dw-reference"), RealClock());
  std::map<std::string, std::vector<std::string>> served_by;
  // Each catalog is held while its tools are read: a range-for over a temporary's member would
  // read freed memory.
  for (const agents::AgentInfo& a : agents::AllAgents()) {
    auto catalog = agents::BuildAgentCatalog(a, services);
    for (const mcp::ToolSpec& t : catalog->tools()) served_by[t.name].push_back(a.name);
  }
  auto all = agents::BuildCombinedCatalog(services);
  std::ostringstream out;
  out << "# MCP tool reference\n\n"
         "Generated from the agents' catalogs by `dw reference --out docs/reference`; do not edit. Each tool\n"
         "with the agents that serve it, its annotations, its input schema and, where it has one, the\n"
         "schema of its structured result. Transports, limits and examples: [tools.md](../tools.md).\n\n";
  for (const agents::AgentInfo& a : agents::AllAgents()) {
    out << "- `" << a.name << "`:";
    auto catalog = agents::BuildAgentCatalog(a, services);
    for (const mcp::ToolSpec& t : catalog->tools()) out << " `" << t.name << "`";
    out << "\n";
  }
  out << "\n";
  for (const mcp::ToolSpec& t : all->tools()) {
    out << "## `" << t.name << "`\n\n";
    if (!t.title.empty()) out << "**" << t.title << "**. ";
    out << t.description << "\n\n";
    std::string agents;
    for (const std::string& a : served_by[t.name]) agents += (agents.empty() ? "" : ", ") + ("`" + a + "`");
    out << "- served by: " << agents << "\n"
        << "- annotations: readOnlyHint " << (t.annotations.read_only ? "true" : "false") << ", destructiveHint "
        << (t.annotations.destructive ? "true" : "false") << ", idempotentHint "
        << (t.annotations.idempotent ? "true" : "false") << ", openWorldHint "
        << (t.annotations.open_world ? "true" : "false") << "\n\n"
        << "Input:\n\n```json\n" << t.input_schema.dump(2) << "\n```\n\n";
    if (t.output_schema) out << "Result (`structuredContent`):\n\n```json\n" << t.output_schema->dump(2) << "\n```\n\n";
  }
  if (!all->resource_templates().empty() || !all->resources().empty()) {
    out << "## Resources\n\n";
    for (const auto& r : all->resources()) out << "- `" << r.uri << "`: " << r.description << "\n";
    for (const auto& r : all->resource_templates()) out << "- `" << r.uri_template << "`: " << r.description << "\n";
    out << "\n";
  }
  if (!all->prompts().empty()) {
    out << "## Prompts\n\n";
    for (const auto& p : all->prompts()) out << "- `" << p.name << "`: " << p.description << "\n";
    out << "\n";
  }
  return out.str();
}

// Writes `text` to dir/name through a temporary file, so a failure never leaves half a page.
bool WritePage(const std::filesystem::path& dir, const std::string& name, const std::string& text) {
  std::filesystem::path tmp = dir / (name + ".tmp");
  {
    std::ofstream f(tmp, std::ios::trunc | std::ios::binary);
    f << text;
    f.close();
    if (!f) return false;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, dir / name, ec);
  return !ec;
}

}  // namespace

int CmdReference(const CLI::App& app, const std::string& out_dir) {
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) {
    std::cerr << "dw reference: cannot create " << out_dir << ": " << ec.message() << "\n";
    return 2;
  }
  const std::pair<const char*, std::string> pages[] = {
      {"commands.md", CommandsPage(app)}, {"workspace-keys.md", KeysPage()}, {"tools.md", ToolsPage()}};
  for (const auto& [name, text] : pages) {
    if (!WritePage(out_dir, name, text)) {
      std::cerr << "dw reference: cannot write " << (std::filesystem::path(out_dir) / name).string() << "\n";
      return 2;
    }
    std::cout << "wrote " << (std::filesystem::path(out_dir) / name).string() << "\n";
  }
  return 0;
}

}  // namespace dw::app
