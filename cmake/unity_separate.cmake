# Sources compiled on their own in a unity build (CMakeLists.txt, DW_UNITY): their file-local names
# (helpers and constants in an anonymous namespace, aliases such as `Clock`) clash with another
# source's in the same namespace, or their classes hold file-local types (GCC's
# -Wsubobject-linkage takes a batched source for a header). A new clash fails the build with
# "redefinition of", "conflicting declaration" or "is ambiguous": rename the helper, or add the
# source here. Also here: sources whose batch GCC 12 at -O2 warns about falsely
# (-Wmaybe-uninitialized inside std::variant, once a neighbour's inlining changes).
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
  tests/actions/propose_test.cc
  tests/actions/receipt_chain_test.cc
  tests/actions/unified_diff_test.cc
  tests/agents/monitor_metrics_tool_test.cc
  tests/app/check_cli_test.cc
  tests/app/cli_test.cc
  tests/app/exit_codes_test.cc
  tests/app/monitor_score_cli_test.cc
  tests/app/monitor_state_cli_test.cc
  tests/app/one_clock_cli_test.cc
  tests/app/propose_cli_test.cc
  tests/app/schema_cli_test.cc
  tests/app/serve_test.cc
  tests/app/watch_replicas_test.cc
  tests/config/cron_test.cc
  tests/crash/crash_consistency_test.cc
  tests/crash/crash_decision_writers_test.cc
  tests/crash/crash_writers_test.cc
  tests/desk/desk_pages_test.cc
  tests/faults/dependency_faults_test.cc
  tests/faults/watch_faults_test.cc
  tests/graph/group_commit_test.cc
  tests/incidents/ev_story_test.cc
  tests/incidents/lifecycle_test.cc
  tests/incidents/loyalty_story_test.cc
  tests/mcp/hostile_stdio_test.cc
  tests/mcp/http_fast_route_test.cc
  tests/mcp/http_hostile_test.cc
  tests/net/http_server_test.cc
  tests/observe/context_novelty_test.cc
  tests/observe/detector_drift_test.cc
  tests/observe/detector_judge_only_test.cc
  tests/observe/detector_state_test.cc
  tests/observe/detector_test.cc
  tests/observe/fair_share_test.cc
  tests/observe/metric_batch_test.cc
  tests/observe/metric_service_test.cc
  tests/observe/metric_snapshot_test.cc
  tests/observe/metric_time_zone_test.cc
  tests/observe/metric_training_test.cc
  tests/observe/monitor_catch_up_test.cc
  tests/observe/quality/check_spec_test.cc
  tests/observe/series_plot_test.cc
  tests/observe/watch_loop_batch_test.cc
  tests/observe/watch_loop_leases_test.cc
  tests/observe/watch_loop_test.cc
  tests/observe/watch_monitor_batch_test.cc
  tests/platforms/notify/notify_channels_test.cc
  tests/platforms/notify/notify_outbox_test.cc
  tests/replay/replay_command_test.cc
  tests/replay/scenario_reader_test.cc
  tests/schema/register_test.cc
  tests/schema/registry_sim_test.cc
  tests/schema/schema_tools_test.cc
  tests/store/metric_store_test.cc
  tests/store/outbox_line_test.cc
  tests/store/state_store_test.cc
  tests/store/watch_history_prune_test.cc
  tests/store/watch_lease_batches_test.cc
  tests/workspace/describe_test.cc
  tests/workspace/graph_app_test.cc
  tests/workspace/lineage_route_test.cc
)
list(TRANSFORM DW_UNITY_SEPARATE PREPEND ${CMAKE_SOURCE_DIR}/)
set_source_files_properties(${DW_UNITY_SEPARATE} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
