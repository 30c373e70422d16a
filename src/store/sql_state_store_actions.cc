// The action stage's tables (person_keys, proposals, action_events) over the shared SqlConnection.
#include "store/sql_cells.h"
#include "store/sql_state_store.h"

namespace dw::store {
namespace {

using Rows = std::vector<SqlRow>;

Result<ProposalRecord> DecodeProposal(const SqlRow& row) {
  RowReader r(row, "proposals");
  ProposalRecord p;
  p.id = r.Text();
  p.version = r.Int();
  p.incident_id = r.Text();
  p.kind = r.Text();
  p.body = r.JsonText();
  p.created_at = r.Time();
  if (!r.status().ok()) return r.status();
  return p;
}

Result<ActionEventRecord> DecodeActionEvent(const SqlRow& row) {
  RowReader r(row, "action_events");
  ActionEventRecord e;
  e.seq = r.Int();
  e.at = r.Time();
  e.kind = r.Text();
  e.subject = r.Text();
  e.actor = r.Text();
  e.nonce = r.Text();  // selected as COALESCE(nonce, '')
  e.body = r.JsonText();
  if (!r.status().ok()) return r.status();
  return e;
}

template <typename T, typename Decode>
Status DecodeRows(const Rows& rows, Decode decode, std::vector<T>& out) {
  for (const SqlRow& row : rows) {
    Result<T> item = decode(row);
    if (!item.ok()) return item.status();
    out.push_back(std::move(item).value());
  }
  return Status::Ok();
}

}  // namespace

Status SqlStateStore::PutPersonKey(const PersonKeyRecord& key) {
  if (key.email.empty()) return InvalidArgument("person key email must not be empty");
  if (key.public_key_pem.empty()) return InvalidArgument("person key must not be empty");
  return Do(true, [&]() -> Status {
    return Run("INSERT INTO person_keys (email, public_key, issued_at) VALUES ($1, $2, $3) "
               "ON CONFLICT (email) DO UPDATE SET public_key = excluded.public_key, "
               "issued_at = excluded.issued_at",
               {key.email, key.public_key_pem, TimeCell(key.issued_at)})
        .status();
  });
}

Result<std::optional<PersonKeyRecord>> SqlStateStore::GetPersonKey(const std::string& email) {
  std::optional<PersonKeyRecord> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows =
        Run("SELECT email, public_key, issued_at FROM person_keys WHERE email = $1", {email});
    if (!rows.ok()) return rows.status();
    if (rows->empty()) return Status::Ok();
    RowReader r((*rows)[0], "person_keys");
    PersonKeyRecord k;
    k.email = r.Text();
    k.public_key_pem = r.Text();
    k.issued_at = r.Time();
    DW_RETURN_IF_ERROR(r.status());
    out = std::move(k);
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

Status SqlStateStore::AddProposal(const ProposalRecord& p) {
  if (p.id.empty()) return InvalidArgument("proposal id must not be empty");
  if (p.version < 1) return InvalidArgument("proposal version must be 1 or more");
  return Do(true, [&]() -> Status {
    Result<Rows> existing =
        Run("SELECT 1 FROM proposals WHERE id = $1 AND version = $2", {p.id, p.version});
    if (!existing.ok()) return existing.status();
    if (!existing->empty()) {
      return Status(StatusCode::kAlreadyExists, "proposal " + p.id + " version " +
                                                    std::to_string(p.version) +
                                                    " is already stored and never changes");
    }
    return Run("INSERT INTO proposals (id, version, incident_id, kind, body, created_at) "
               "VALUES ($1, $2, $3, $4, $5, $6)",
               {p.id, p.version, p.incident_id, p.kind, RedactedJsonCell(p.body), TimeCell(clock_.Now())})
        .status();
  });
}

Result<std::vector<ProposalRecord>> SqlStateStore::ProposalVersions(const std::string& id) {
  std::vector<ProposalRecord> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows = Run(
        "SELECT id, version, incident_id, kind, body, created_at FROM proposals WHERE id = $1 "
        "ORDER BY version",
        {id});
    if (!rows.ok()) return rows.status();
    return DecodeRows(*rows, DecodeProposal, out);
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::vector<ProposalRecord>> SqlStateStore::ProposalsOfIncident(
    const std::string& incident_id) {
  std::vector<ProposalRecord> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows = Run(
        "SELECT id, version, incident_id, kind, body, created_at FROM proposals "
        "WHERE incident_id = $1 ORDER BY id, version",
        {incident_id});
    if (!rows.ok()) return rows.status();
    return DecodeRows(*rows, DecodeProposal, out);
  });
  if (!s.ok()) return s;
  return out;
}

Result<int64_t> SqlStateStore::AppendActionEvent(const ActionEventRecord& e) {
  if (e.kind.empty() || e.subject.empty())
    return InvalidArgument("an action event needs a kind and a subject");
  int64_t seq = 0;
  Status s = Do(true, [&]() -> Status {
    if (!e.nonce.empty()) {
      Result<Rows> seen = Run("SELECT seq FROM action_events WHERE nonce = $1", {e.nonce});
      if (!seen.ok()) return seen.status();
      if (!seen->empty())
        return Status(StatusCode::kAlreadyExists, "nonce " + e.nonce + " was already used");
    }
    SqlValue nonce = e.nonce.empty() ? SqlValue{} : SqlValue{e.nonce};
    Result<Rows> rows = Run(
        "INSERT INTO action_events (at, kind, subject, actor, nonce, body) "
        "VALUES ($1, $2, $3, $4, $5, $6) RETURNING seq",
        {TimeCell(e.at), e.kind, e.subject, e.actor, nonce, RedactedJsonCell(e.body)});
    if (!rows.ok()) return rows.status();
    if (rows->size() != 1) return Internal("action_events insert returned no seq");
    RowReader r((*rows)[0], "action_events");
    seq = r.Int();
    return r.status();
  });
  if (!s.ok()) return s;
  return seq;
}

Result<std::vector<ActionEventRecord>> SqlStateStore::ActionEvents(const std::string& subject) {
  std::vector<ActionEventRecord> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows =
        subject.empty()
            ? Run("SELECT seq, at, kind, subject, actor, COALESCE(nonce, ''), body FROM action_events "
                  "ORDER BY seq",
                  {})
            : Run("SELECT seq, at, kind, subject, actor, COALESCE(nonce, ''), body FROM action_events "
                  "WHERE subject = $1 ORDER BY seq",
                  {subject});
    if (!rows.ok()) return rows.status();
    return DecodeRows(*rows, DecodeActionEvent, out);
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::vector<ActionEventRecord>> SqlStateStore::ActionEventsOfOpenRequests() {
  std::vector<ActionEventRecord> out;
  Status s = Do(false, [&]() -> Status {
    // The subquery reads only the (subject, kind, seq) index: each proposal's newest request
    // against its newest draft or close, no body decoded. (LIKE, not a range on subject: under a
    // PostgreSQL locale collation ':' may not sort where ASCII puts it.)
    Result<Rows> rows = Run(
        "SELECT seq, at, kind, subject, actor, COALESCE(nonce, ''), body FROM action_events "
        "WHERE subject IN (SELECT subject FROM action_events "
        "WHERE subject LIKE 'proposal:%' GROUP BY subject HAVING "
        "MAX(CASE WHEN kind IN ('sent', 'escalated', 'awaiting') THEN seq END) > "
        "COALESCE(MAX(CASE WHEN kind IN ('drafted', 'expired', 'lapsed', 'approved', 'denied') "
        "THEN seq END), 0)) ORDER BY seq",
        {});
    if (!rows.ok()) return rows.status();
    return DecodeRows(*rows, DecodeActionEvent, out);
  });
  if (!s.ok()) return s;
  return out;
}

}  // namespace dw::store
