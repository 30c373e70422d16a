// The `dw` command line: parses arguments and runs one command. Exit codes: 0 success, 1 the
// command ran and found a problem (invalid workspace, failed check), 2 usage or setup error.
#pragma once

namespace dw::app {

// Runs `dw` with the given arguments and returns the process exit code.
int RunCli(int argc, char** argv);

}  // namespace dw::app
