# Sources compiled on their own in a unity build (CMakeLists.txt, DW_UNITY): their file-local names
# (helpers and constants in an anonymous namespace, aliases such as `Clock`) clash with another
# source's in the same namespace, or their classes hold file-local types (GCC's
# -Wsubobject-linkage takes a batched source for a header). A new clash fails the build with
# "redefinition of", "conflicting declaration" or "is ambiguous": rename the helper, or add the
# source here. Also here: sources whose batch GCC 12 at -O2 warns about falsely
# (-Wmaybe-uninitialized inside std::variant, once a neighbour's inlining changes).
# No test source is here: a test whose file-local names repeat another's keeps its helpers and its
# tests in a namespace named after the file, inside its anonymous one
# (`namespace dw::store { namespace { namespace state_store_test {`), and is batched; a new test
# that clashes does the same instead of coming here.
set(DW_UNITY_SEPARATE
  sim/kestra_sim.cc
  src/actions/kestra_flow_fix.cc
  src/app/cmd_incidents.cc
  src/base/redaction.cc
  src/graph/openlineage_reader.cc
  src/incidents/metric_windows.cc
  src/mcp/http_transport.cc
  src/mcp/session.cc
  src/net/http_server.cc
  src/observe/metrics/monitor_catch_up.cc
  src/platforms/notify/pagerduty_channel.cc
  src/replay/message_expectations.cc
)
list(TRANSFORM DW_UNITY_SEPARATE PREPEND ${CMAKE_SOURCE_DIR}/)
set_source_files_properties(${DW_UNITY_SEPARATE} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
