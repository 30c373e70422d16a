// The notification outbox of SqlStateStore (declared in sql_state_store.h): kept in a file of its
// own so the outbox's SQL reads in one place.
#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "store/sql_cells.h"
#include "store/sql_state_store.h"

namespace dw::store {
namespace {

constexpr const char* kOutboxColumns =
    "id, incident_id, channel, event, payload, state, attempts, next_attempt_at, last_error, "
    "answer, created_at, updated_at";

bool KnownState(const std::string& s) { return s == "pending" || s == "sent" || s == "failed"; }

Result<OutboxMessage> DecodeOutbox(const SqlRow& row) {
  RowReader r(row, "notify_outbox");
  OutboxMessage m;
  m.id = r.Int();
  m.incident_id = r.Text();
  m.channel = r.Text();
  m.event = r.Text();
  m.payload = r.JsonText();
  m.state = r.Text();
  m.attempts = static_cast<int>(r.Int());
  m.next_attempt_at = r.Time();
  m.last_error = r.Text();
  m.answer = r.JsonText();
  m.created_at = r.Time();
  m.updated_at = r.Time();
  if (!r.status().ok()) return r.status();
  return m;
}

Status DecodeRows(const std::vector<SqlRow>& rows, std::vector<OutboxMessage>* out) {
  for (const SqlRow& row : rows) {
    Result<OutboxMessage> m = DecodeOutbox(row);
    if (!m.ok()) return m.status();
    out->push_back(std::move(m).value());
  }
  return Status::Ok();
}

// Keeps next_in_line true on exactly the oldest pending message of (incident, channel) after any
// write to that line (its rows are few: one per event of one incident). Rows whose flag is already
// right are not rewritten.
constexpr const char* kRelineSql =
    "UPDATE notify_outbox SET next_in_line = 1 - next_in_line "
    "WHERE incident_id = $1 AND channel = $2 AND next_in_line <> CASE WHEN id = ("
    "SELECT min(e.id) FROM notify_outbox e WHERE e.incident_id = $1 AND e.channel = $2 "
    "AND e.state = 'pending') THEN 1 ELSE 0 END";

}  // namespace

// Which message is next in a line is decided from what the writing transaction reads. SQLite's
// write transactions are serial (BEGIN IMMEDIATE), so that read is always current; PostgreSQL's
// READ COMMITTED would let two writers of one line (a `dw approve` enqueueing while `dw watch`
// records a send) each miss the other's row and leave the line with no message next, or two.
// One transaction-scoped advisory lock serializes the outbox's writers on PostgreSQL; it is held
// to the commit, so the second writer reads what the first wrote.
Status SqlStateStore::LockOutboxLines() {
  if (conn_->backend() != "postgresql") return Status::Ok();
  return Run("SELECT pg_advisory_xact_lock(1685520640)", {}).status();  // 0x64770100: "outbox"
}

Result<bool> SqlStateStore::EnqueueOutbox(const OutboxMessage& m) {
  if (m.incident_id.empty() || m.channel.empty() || m.event.empty())
    return InvalidArgument("an outbox message needs an incident id, a channel and an event");
  if (!KnownState(m.state))
    return InvalidArgument("outbox state must be pending, sent or failed, not '" + m.state + "'");
  bool inserted = false;
  Status s = Do(true, [&]() -> Status {
    DW_RETURN_IF_ERROR(LockOutboxLines());
    SqlValue now = TimeCell(clock_.Now());
    // DO NOTHING keeps a duplicate from failing (and dooming) an enclosing transaction.
    Result<std::vector<SqlRow>> rows =
        Run("INSERT INTO notify_outbox (incident_id, channel, event, payload, state, attempts, "
            "next_attempt_at, last_error, answer, created_at, updated_at) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) "
            "ON CONFLICT (incident_id, channel, event) DO NOTHING RETURNING id",
            {m.incident_id, m.channel, m.event, RedactedJsonCell(m.payload), m.state,
             static_cast<int64_t>(m.attempts), TimeCell(m.next_attempt_at), ProseCell(m.last_error),
             RedactedJsonCell(m.answer), now});
    if (!rows.ok()) return rows.status();
    inserted = !rows->empty();
    if (!inserted) return Status::Ok();
    return Run(kRelineSql, {m.incident_id, m.channel}).status();
  });
  if (!s.ok()) return s;
  return inserted;
}

Result<std::vector<OutboxMessage>> SqlStateStore::DueOutbox(TimePoint now, int limit) {
  if (limit <= 0) return InvalidArgument("limit must be positive");
  std::vector<OutboxMessage> out;
  Status s = Do(false, [&]() -> Status {
    Result<std::vector<SqlRow>> rows =
        // Only the messages next in their line (the partial index notify_outbox_next): the ones
        // queued behind them are not read at all, so a round costs its `limit`, not the backlog.
        Run(std::string("SELECT ") + kOutboxColumns +
                " FROM notify_outbox WHERE next_in_line = 1 AND next_attempt_at <= $1 "
                "ORDER BY next_attempt_at, id LIMIT $2",
            {TimeCell(now), static_cast<int64_t>(limit)});
    if (!rows.ok()) return rows.status();
    return DecodeRows(*rows, &out);
  });
  if (!s.ok()) return s;
  return out;
}

Status SqlStateStore::UpdateOutbox(const OutboxMessage& m) {
  if (!KnownState(m.state))
    return InvalidArgument("outbox state must be pending, sent or failed, not '" + m.state + "'");
  return Do(true, [&]() -> Status {
    DW_RETURN_IF_ERROR(LockOutboxLines());
    Result<std::vector<SqlRow>> rows =
        Run("UPDATE notify_outbox SET state = $2, attempts = $3, next_attempt_at = $4, "
            "last_error = $5, answer = $6, updated_at = $7 WHERE id = $1 "
            "RETURNING incident_id, channel",
            {m.id, m.state, static_cast<int64_t>(m.attempts), TimeCell(m.next_attempt_at),
             ProseCell(m.last_error), RedactedJsonCell(m.answer), TimeCell(clock_.Now())});
    if (!rows.ok()) return rows.status();
    if (rows->empty()) return NotFound("no outbox message " + std::to_string(m.id));
    // The line is what the stored row belongs to, whatever `m` says about it.
    RowReader r((*rows)[0], "notify_outbox");
    std::string incident_id = r.Text();
    std::string channel = r.Text();
    if (!r.status().ok()) return r.status();
    return Run(kRelineSql, {incident_id, channel}).status();
  });
}

Status SqlStateStore::UpdateOutboxMessages(const std::vector<OutboxMessage>& messages) {
  std::set<int64_t> ids;
  for (const OutboxMessage& m : messages) {
    if (!KnownState(m.state))
      return InvalidArgument("outbox state must be pending, sent or failed, not '" + m.state + "'");
    if (!ids.insert(m.id).second)
      return InvalidArgument("outbox message " + std::to_string(m.id) + " is to be updated twice at once");
  }
  // A round's outcomes in a few statements rather than two per message: on PostgreSQL each
  // statement is a round trip, and 1,000 of them made the commit of a 500-message round 0.3 s.
  constexpr size_t kPerStatement = 100;
  return Do(true, [&]() -> Status {
    DW_RETURN_IF_ERROR(LockOutboxLines());
    const SqlValue now = TimeCell(clock_.Now());
    for (size_t start = 0; start < messages.size(); start += kPerStatement) {
      const size_t end = std::min(messages.size(), start + kPerStatement);
      // Placeholders only: every value is bound. VALUES columns are column1.. on both backends,
      // and untyped parameters in VALUES are text on PostgreSQL, hence the casts.
      std::string values;
      std::vector<SqlValue> params{now};
      for (size_t i = start; i < end; ++i) {
        const OutboxMessage& m = messages[i];
        const size_t p = params.size() + 1;
        values += std::string(values.empty() ? "" : ", ") + "(CAST($" + std::to_string(p) + " AS BIGINT), $" +
                  std::to_string(p + 1) + ", CAST($" + std::to_string(p + 2) + " AS BIGINT), CAST($" +
                  std::to_string(p + 3) + " AS BIGINT), $" + std::to_string(p + 4) + ", $" + std::to_string(p + 5) + ")";
        params.insert(params.end(), {m.id, m.state, static_cast<int64_t>(m.attempts), TimeCell(m.next_attempt_at),
                                     ProseCell(m.last_error), RedactedJsonCell(m.answer)});
      }
      Result<std::vector<SqlRow>> rows =
          Run("UPDATE notify_outbox SET state = v.column2, attempts = v.column3, next_attempt_at = v.column4, "
              "last_error = v.column5, answer = v.column6, updated_at = $1 FROM (VALUES " + values +
                  ") AS v WHERE notify_outbox.id = v.column1 "
                  "RETURNING notify_outbox.incident_id, notify_outbox.channel",
              params);
      if (!rows.ok()) return rows.status();
      if (rows->size() != end - start)
        return NotFound(std::to_string(end - start - rows->size()) + " of the outbox messages to update do not exist");
      // The lines these messages belong to, each set right again (as kRelineSql does for one).
      std::string lines;
      std::vector<SqlValue> line_params;
      std::set<std::pair<std::string, std::string>> seen;
      for (const SqlRow& row : *rows) {
        RowReader r(row, "notify_outbox");
        std::string incident_id = r.Text();
        std::string channel = r.Text();
        if (!r.status().ok()) return r.status();
        if (!seen.emplace(incident_id, channel).second) continue;
        const size_t p = line_params.size() + 1;
        lines += std::string(lines.empty() ? "" : ", ") + "($" + std::to_string(p) + ", $" + std::to_string(p + 1) + ")";
        line_params.push_back(incident_id);
        line_params.push_back(channel);
      }
      DW_RETURN_IF_ERROR(
          Run("UPDATE notify_outbox SET next_in_line = 1 - next_in_line "
              "WHERE id IN (SELECT o.id FROM (VALUES " + lines + ") AS l JOIN notify_outbox o "
              "ON o.incident_id = l.column1 AND o.channel = l.column2) AND next_in_line <> CASE WHEN id = ("
              "SELECT min(e.id) FROM notify_outbox e WHERE e.incident_id = notify_outbox.incident_id "
              "AND e.channel = notify_outbox.channel AND e.state = 'pending') THEN 1 ELSE 0 END",
              line_params)
              .status());
    }
    return Status::Ok();
  });
}

Result<std::vector<OutboxMessage>> SqlStateStore::OutboxFor(const std::string& incident_id) {
  std::vector<OutboxMessage> out;
  Status s = Do(false, [&]() -> Status {
    Result<std::vector<SqlRow>> rows = Run(
        std::string("SELECT ") + kOutboxColumns + " FROM notify_outbox WHERE incident_id = $1 ORDER BY id",
        {incident_id});
    if (!rows.ok()) return rows.status();
    return DecodeRows(*rows, &out);
  });
  if (!s.ok()) return s;
  return out;
}

}  // namespace dw::store
