// How `dw check` compares with the engine's own limit and with the naive way, on a generated wide
// table in SQLite and PostgreSQL (issue 3). For each backend, side by side in one run:
//  - bare scan: SELECT count(b4), the last column without an index;
//  - hand-written: the check aggregates as one SELECT (34 expressions), what an expert would write;
//  - dw check: not_null on all 22 columns, range on 5, freshness and volume, as a `dw` child
//    process (wall time and its peak resident memory);
//  - naive: the same checks as one query per check (29 queries);
//  - unique: `dw check --checks unique` on the key;
//  - incremental: after 1% new rows arrive (index on the time column), `dw check --since`.
// Each figure is the median of --repeat runs after one warm-up scan.
// usage: quality_scan_bench ROWS [--sqlite-dir DIR] [--pg URL] [--repeat N] [--only sqlite|pg]
//   e.g. scripts/with-postgres.sh sh -c 'build/quality_scan_bench 10000000 --pg "$DW_TEST_PG_URL"'
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "store/postgres_connection.h"
#include "store/sqlite_connection.h"
#include "tests/support/build_paths.h"
#include "warehouse/warehouse.h"

namespace {

namespace fs = std::filesystem;
using Steady = std::chrono::steady_clock;
using dw::warehouse::Warehouse;

constexpr int kInts = 6, kFloats = 6, kTexts = 4, kBools = 4;

std::vector<std::string> DataColumns() {
  std::vector<std::string> c;
  for (int i = 1; i <= kInts; ++i) c.push_back("i" + std::to_string(i));
  for (int i = 1; i <= kFloats; ++i) c.push_back("f" + std::to_string(i));
  for (int i = 1; i <= kTexts; ++i) c.push_back("t" + std::to_string(i));
  for (int i = 1; i <= kBools; ++i) c.push_back("b" + std::to_string(i));
  return c;
}
std::vector<std::string> AllColumns() {
  std::vector<std::string> c = {"id"};
  for (const std::string& d : DataColumns()) c.push_back(d);
  c.push_back("ts");
  return c;
}
const std::vector<std::string> kRangeColumns = {"i1", "i2", "i3", "f1", "f2"};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void Die(const std::string& what) {
  std::fprintf(stderr, "quality_scan_bench: %s\n", what.c_str());
  std::exit(1);
}

// Seconds one query takes.
double TimeQuery(Warehouse& wh, const std::string& sql) {
  auto start = Steady::now();
  auto r = wh.Query(sql, {}, {std::chrono::hours(1)});
  if (!r.ok()) Die(r.status().ToString() + " in " + sql);
  return std::chrono::duration<double>(Steady::now() - start).count();
}

std::string HandWritten(const std::string& table, bool pg) {
  std::string s = "SELECT count(*)";
  for (const std::string& c : AllColumns()) s += ", count(*) - count(\"" + c + "\")";
  for (const std::string& c : kRangeColumns) s += ", min(\"" + c + "\"), max(\"" + c + "\")";
  s += pg ? ", extract(epoch from max(\"ts\")) * 1000" : ", max(\"ts\")";
  return s + " FROM " + table;
}

std::vector<std::string> Naive(const std::string& table, bool pg) {
  std::vector<std::string> q = {"SELECT count(*) FROM " + table};
  for (const std::string& c : AllColumns())
    q.push_back("SELECT count(*) - count(\"" + c + "\") FROM " + table);
  for (const std::string& c : kRangeColumns)
    q.push_back("SELECT min(\"" + c + "\"), max(\"" + c + "\") FROM " + table);
  q.push_back(std::string("SELECT ") + (pg ? "extract(epoch from max(\"ts\")) * 1000" : "max(\"ts\")") +
              " FROM " + table);
  return q;
}

struct ChildRun {
  double seconds = 0;
  long max_rss_kb = 0;
  int exit_code = -1;
};

// Runs `dw` with `args` in `workspace`, its output discarded; wall time and peak RSS of that child.
ChildRun RunDw(const fs::path& workspace, const std::vector<std::string>& args) {
  auto start = Steady::now();
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<std::string> argv_s = {DW_BINARY, "--workspace", workspace.string()};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    FILE* devnull = std::fopen("/dev/null", "w");
    dup2(fileno(devnull), 1);
    execv(DW_BINARY, argv.data());
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  ChildRun r;
  r.seconds = std::chrono::duration<double>(Steady::now() - start).count();
  r.max_rss_kb = usage.ru_maxrss;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

void WriteWorkspace(const fs::path& dir, const std::string& warehouse_yaml, const std::string& table) {
  std::ofstream out(dir / "dataworkers.yaml");
  out << "version: 1\nname: bench\nwarehouses:\n  wh: " << warehouse_yaml << "\nchecks:\n"
      << "  - table: " << table << "\n    time_column: ts\n    not_null: [";
  std::vector<std::string> cols = AllColumns();
  for (size_t i = 0; i < cols.size(); ++i) out << (i ? ", " : "") << cols[i];
  out << "]\n    unique: [id]\n    range: {";
  for (size_t i = 0; i < kRangeColumns.size(); ++i)
    out << (i ? ", " : "") << kRangeColumns[i] << ": {min: -1000000000, max: 1000000000}";
  out << "}\n    freshness: {max_age: 1000d}\n    volume: {min_rows: 1}\n";
}

struct Figures {
  double bare = 0, hand = 0, dw = 0, naive = 0, unique = 0, incremental = 0, dw_after = 0;
  long rss_kb = 0;
  size_t naive_queries = 0;
};

Figures Measure(Warehouse& wh, const fs::path& workspace, const std::string& table, bool pg,
                int repeat, const std::function<void()>& add_new_rows, const std::string& since) {
  Figures f;
  // The last column without an index (count(ts) would read the index on ts instead of the table).
  const std::string bare_sql = "SELECT count(\"b4\") FROM " + table;
  TimeQuery(wh, bare_sql);  // warm-up: the table is in cache
  std::vector<double> bare, hand, dw, naive, unique, incr, after;
  const std::vector<std::string> naive_queries = Naive(table, pg);
  f.naive_queries = naive_queries.size();
  const std::vector<std::string> full = {"check", "--checks", "not_null,range,freshness,volume"};
  for (int i = 0; i < repeat; ++i) {
    bare.push_back(TimeQuery(wh, bare_sql));
    hand.push_back(TimeQuery(wh, HandWritten(table, pg)));
    ChildRun run = RunDw(workspace, full);
    // Exit 1 is expected: the float columns hold NULLs, so their not_null checks fail.
    if (run.exit_code != 0 && run.exit_code != 1) Die("dw check exited " + std::to_string(run.exit_code));
    dw.push_back(run.seconds);
    f.rss_kb = std::max(f.rss_kb, run.max_rss_kb);
    double total = 0;
    for (const std::string& q : naive_queries) total += TimeQuery(wh, q);
    naive.push_back(total);
    ChildRun u = RunDw(workspace, {"check", "--checks", "unique"});
    if (u.exit_code != 0) Die("dw check --checks unique exited " + std::to_string(u.exit_code));
    unique.push_back(u.seconds);
  }
  add_new_rows();
  for (int i = 0; i < repeat; ++i) {
    ChildRun full_run = RunDw(workspace, full);
    after.push_back(full_run.seconds);
    std::vector<std::string> args = full;
    args.push_back("--since");
    args.push_back(since);
    ChildRun inc = RunDw(workspace, args);
    if (inc.exit_code != 0 && inc.exit_code != 1) Die("incremental dw check exited " + std::to_string(inc.exit_code));
    incr.push_back(inc.seconds);
    f.rss_kb = std::max(f.rss_kb, inc.max_rss_kb);
  }
  f.bare = Median(bare);
  f.hand = Median(hand);
  f.dw = Median(dw);
  f.naive = Median(naive);
  f.unique = Median(unique);
  f.dw_after = Median(after);
  f.incremental = Median(incr);
  return f;
}

void Print(const char* backend, long rows, const Figures& f, double naive_target) {
  std::printf("\n%s, %ld rows x %zu columns\n", backend, rows, AllColumns().size());
  std::printf("  bare scan count(b4), the last data col  %8.3f s\n", f.bare);
  std::printf("  hand-written single SELECT (34 aggs)   %8.3f s\n", f.hand);
  std::printf("  dw check (process, 29 checks)          %8.3f s   %.2fx hand-written (target <= 1.15)\n",
              f.dw, f.dw / f.hand);
  std::printf("  naive, one query per check (%zu)        %8.3f s   dw is %.1fx faster (target >= %.0f)\n",
              f.naive_queries, f.naive, f.naive / f.dw, naive_target);
  std::printf("  dw check --checks unique               %8.3f s\n", f.unique);
  std::printf("  dw check after +1%% rows (full)         %8.3f s\n", f.dw_after);
  std::printf("  dw check --since (the new 1%%)          %8.3f s   %.1f%% of the full run (target < 5%%)\n",
              f.incremental, 100.0 * f.incremental / f.dw_after);
  std::printf("  dw peak resident memory                %8.1f MB  (target < 50)\n", f.rss_kb / 1024.0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) Die("usage: quality_scan_bench ROWS [--sqlite-dir DIR] [--pg URL] [--repeat N] [--only sqlite|pg]");
  const long rows = std::atol(argv[1]);
  std::string pg_url, sqlite_dir = fs::temp_directory_path() / "dw-quality-bench";
  int repeat = 3;
  std::string only;  // "sqlite" or "pg": run one backend
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--pg") pg_url = argv[i + 1];
    else if (a == "--sqlite-dir") sqlite_dir = argv[i + 1];
    else if (a == "--repeat") repeat = std::atoi(argv[i + 1]);
    else if (a == "--only") only = argv[i + 1];
    else Die("unknown option " + a);
  }
  const long added = rows / 100;
  const long base_epoch = 1790000000;  // 2026-09-21: rows land one second apart from here

  if (only == "sqlite") pg_url.clear();
  if (only != "pg") {
    fs::remove_all(sqlite_dir);
    fs::create_directories(sqlite_dir);
    fs::path db = fs::path(sqlite_dir) / "wide.db";
    auto conn = dw::store::OpenSqliteConnection(db.string());
    if (!conn.ok()) Die(conn.status().ToString());
    auto gen = [&](long from, long count) {
      std::string cols = "x";
      for (int i = 1; i <= kInts; ++i) cols += ", abs(random()) % 100000";
      for (int i = 1; i <= kFloats; ++i)
        cols += ", CASE WHEN abs(random()) % 10 = 0 THEN NULL ELSE (abs(random()) % 1000000) / 7.0 END";
      for (int i = 1; i <= kTexts; ++i) cols += ", 'name-' || (x % 997)";
      for (int i = 1; i <= kBools; ++i) cols += ", x % 2";
      cols += ", strftime('%Y-%m-%dT%H:%M:%fZ', " + std::to_string(base_epoch) + " + x, 'unixepoch')";
      return "WITH RECURSIVE g(x) AS (SELECT " + std::to_string(from) + " UNION ALL SELECT x + 1 FROM g "
             "WHERE x < " + std::to_string(from + count - 1) + ") INSERT INTO wide SELECT " + cols + " FROM g";
    };
    std::string ddl = "PRAGMA journal_mode=DELETE; CREATE TABLE wide (id INTEGER PRIMARY KEY";
    for (const std::string& c : DataColumns())
      ddl += ", " + c + (c[0] == 'f' ? " REAL" : c[0] == 't' ? " TEXT" : " INTEGER");
    ddl += ", ts TEXT)";
    std::fprintf(stderr, "generating %ld rows in SQLite...\n", rows);
    if (auto s = (*conn)->ExecScript(ddl + ";" + gen(1, rows) + "; CREATE INDEX wide_ts ON wide (ts)"); !s.ok())
      Die(s.ToString());
    conn->reset();
    fs::path ws = fs::path(sqlite_dir) / "ws";
    fs::create_directories(ws);
    WriteWorkspace(ws, "{type: sqlite, path: " + db.string() + "}", "wh.wide");
    dw::config::WarehouseConfig cfg{"wh", "sqlite", db.string(), ""};
    auto wh = dw::warehouse::OpenWarehouse(cfg);
    if (!wh.ok()) Die(wh.status().ToString());
    char since[64];
    std::time_t first_new = base_epoch + rows + 1;
    std::strftime(since, sizeof since, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&first_new));
    Figures f = Measure(**wh, ws, "\"wide\"", false, repeat, [&] {
      auto w = dw::store::OpenSqliteConnection(db.string());
      if (!w.ok()) Die(w.status().ToString());
      if (auto s = (*w)->ExecScript(gen(rows + 1, added)); !s.ok()) Die(s.ToString());
    }, since);
    Print("SQLite", rows, f, 3);
  }

  if (!pg_url.empty()) {
    auto conn = dw::store::OpenPostgresConnection(pg_url);
    if (!conn.ok()) Die(conn.status().ToString());
    auto gen = [&](long from, long count) {
      std::string cols = "g";
      for (int i = 1; i <= kInts; ++i) cols += ", (random() * 100000)::int";
      for (int i = 1; i <= kFloats; ++i) cols += ", CASE WHEN random() < 0.1 THEN NULL ELSE random() * 1000000 END";
      for (int i = 1; i <= kTexts; ++i) cols += ", 'name-' || (g % 997)";
      for (int i = 1; i <= kBools; ++i) cols += ", g % 2 = 0";
      cols += ", to_timestamp(" + std::to_string(base_epoch) + " + g)";
      return "INSERT INTO bench_wide SELECT " + cols + " FROM generate_series(" + std::to_string(from) +
             ", " + std::to_string(from + count - 1) + ") g";
    };
    std::string ddl = "DROP TABLE IF EXISTS bench_wide; CREATE TABLE bench_wide (id bigint PRIMARY KEY";
    for (const std::string& c : DataColumns())
      ddl += ", " + c + (c[0] == 'f' ? " double precision" : c[0] == 't' ? " text" : c[0] == 'b' ? " boolean" : " integer");
    ddl += ", ts timestamptz)";
    std::fprintf(stderr, "generating %ld rows in PostgreSQL...\n", rows);
    if (auto s = (*conn)->ExecScript(ddl + ";" + gen(1, rows) +
                                     "; CREATE INDEX bench_wide_ts ON bench_wide (ts)");
        !s.ok())
      Die(s.ToString());
    // VACUUM cannot run inside the implicit transaction of a multi-statement script.
    if (auto v = (*conn)->Query("VACUUM ANALYZE bench_wide", {}); !v.ok()) Die(v.status().ToString());
    fs::path ws = fs::path(sqlite_dir) / "ws-pg";
    fs::create_directories(ws);
    WriteWorkspace(ws, "{type: postgres, dsn: \"" + pg_url + "\"}", "wh.public.bench_wide");
    dw::config::WarehouseConfig cfg{"wh", "postgres", "", pg_url};
    auto wh = dw::warehouse::OpenWarehouse(cfg);
    if (!wh.ok()) Die(wh.status().ToString());
    char since[64];
    std::time_t first_new = base_epoch + rows + 1;
    std::strftime(since, sizeof since, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&first_new));
    Figures f = Measure(**wh, ws, "\"public\".\"bench_wide\"", true, repeat, [&] {
      if (auto s = (*conn)->ExecScript(gen(rows + 1, added) + "; ANALYZE bench_wide"); !s.ok()) Die(s.ToString());
    }, since);
    Print("PostgreSQL 15", rows, f, 8);
  }
  return 0;
}
