// The `dw` binary: everything happens in app/.
#include "app/cli.h"

int main(int argc, char** argv) { return dw::app::RunCli(argc, argv); }
