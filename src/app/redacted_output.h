// The `dw` command line's one output path: std::cout and std::cerr pass every line through
// RedactSecrets (base/redaction.h) before it reaches the terminal, a pipe or a log file, so no
// command can print a password, token or webhook URL, whichever message or value carries it.
// (MCP over stdio writes its own descriptor and redacts each tool result; see mcp/tool_invocation.)
#pragma once

namespace dw::app {

// Installs the redacting filter on std::cout and std::cerr for the rest of the process; text is
// written line by line (a partial line when the process exits). Idempotent.
void RedactStandardStreams();

}  // namespace dw::app
