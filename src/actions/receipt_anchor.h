// Where the receipt chain is anchored outside the store, and what a simulated clock dated.
//
// A resolution notice says the receipt it announces, "(receipt N, hash H)", in the summary every
// channel sends (NotifyResolved). Once delivered, that head has left the store: a chain emptied,
// cut before it or rewritten after it no longer matches what its readers were told.
// VerifyReceiptChain checks against the newest such head when it is given no other.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/clock.h"
#include "base/status.h"
#include "store/state_store.h"

namespace dw::actions {

// The newest receipt a delivered (state "sent") resolution notice announced.
struct AnnouncedHead {
  int64_t seq = 0;
  std::string hash;
  int64_t message_id = 0;  // the outbox message
  std::string channel;
  std::string incident_id;
  TimePoint sent_at;
  // "notification 12 (teams, incident INC-3)": how errors and `dw receipts verify` name it.
  std::string Where() const;
};

// The receipt (seq, hash) a resolution notice's summary announces, parsed from its last
// "(receipt N, hash H)" (H 64 lower-case hex digits); nullopt when it names none.
std::optional<std::pair<int64_t, std::string>> ReceiptNamedIn(const std::string& summary);

// The newest head announced by a sent "resolved" message of any incident the store holds, or
// nullopt when none was delivered yet. The store's error if it cannot be read.
Result<std::optional<AnnouncedHead>> LatestAnnouncedHead(store::StateStore& store);

// The content key a receipt (and a decision's row) recorded under a simulated clock carries, with
// the value "simulated": its dates are not the machine's.
inline constexpr const char* kSimulatedClockKey = "clock";

// Whether `clock` is not the machine's time: any clock but RealClock() (--now, `dw watch` started
// at --now, a replay, a test's SimulatedClock).
bool IsSimulatedClock(const Clock& clock);

// How many receipts' content says they were dated by a simulated clock.
Result<int64_t> CountSimulatedReceipts(store::StateStore& store);

}  // namespace dw::actions
