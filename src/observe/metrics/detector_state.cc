#include "observe/metrics/detector_state.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

namespace dw::observe::metrics {
namespace {

constexpr char kMagic[4] = {'D', 'W', 'D', 'S'};
constexpr uint8_t kFormat = 1;
constexpr size_t kResidualSearch = 64;  // how far back a learnt residual is looked for among the judged ones
constexpr size_t kMaxSlotCount = 4096;  // more than any seasonality has (2016 at 5-minute resolution)

static_assert(std::endian::native == std::endian::little,
              "snapshots are little-endian; a big-endian build needs byte swaps in Writer and Reader");

uint64_t Fnv1a(std::string_view bytes, uint64_t h = 1469598103934665603ULL) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

// Appends little-endian fixed-width numbers and LEB128 varints.
class Writer {
 public:
  Writer() { out_.reserve(16 * 1024); }  // a full snapshot, without regrowing
  void U8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void Var(uint64_t v) {
    while (v >= 0x80) {
      U8(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    U8(static_cast<uint8_t>(v));
  }
  void SVar(int64_t v) { Var((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
  void Fixed64(uint64_t v) {
    char b[8];
    std::memcpy(b, &v, 8);
    out_.append(b, 8);
  }
  void F64(double d) {
    uint64_t v;
    std::memcpy(&v, &d, 8);
    Fixed64(v);
  }
  void F32(float f) {
    uint32_t v;
    std::memcpy(&v, &f, 4);
    char b[4];
    std::memcpy(b, &v, 4);
    out_.append(b, 4);
  }
  void Bytes(std::string_view b) { out_.append(b); }
  std::string& out() { return out_; }

 private:
  std::string out_;
};

// Reads what Writer wrote; the first read past the end (or a malformed varint) sets failed() and
// every later read returns 0, so a decoder checks once at the end of each part.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool failed() const { return failed_; }
  size_t remaining() const { return in_.size() - pos_; }
  uint8_t U8() {
    if (pos_ >= in_.size()) {
      failed_ = true;
      return 0;
    }
    return static_cast<uint8_t>(in_[pos_++]);
  }
  uint64_t Var() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      uint8_t b = U8();
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    failed_ = true;
    return 0;
  }
  int64_t SVar() {
    uint64_t u = Var();
    return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
  }
  uint64_t Fixed64() {
    uint64_t v = 0;
    if (remaining() < 8) {
      failed_ = true;
      return 0;
    }
    std::memcpy(&v, in_.data() + pos_, 8);
    pos_ += 8;
    return v;
  }
  double F64() {
    uint64_t v = Fixed64();
    double d;
    std::memcpy(&d, &v, 8);
    return d;
  }
  float F32() {
    uint32_t v = 0;
    if (remaining() < 4) {
      failed_ = true;
      return 0;
    }
    std::memcpy(&v, in_.data() + pos_, 4);
    pos_ += 4;
    float f;
    std::memcpy(&f, &v, 4);
    return f;
  }
  // A count of elements that each take at least one byte: never more than what is left, so a
  // damaged count cannot make the decoder allocate gigabytes.
  size_t Count() {
    uint64_t n = Var();
    if (n > remaining()) {
      failed_ = true;
      return 0;
    }
    return static_cast<size_t>(n);
  }
  std::string_view Bytes(size_t n) {
    if (n > remaining()) {
      failed_ = true;
      return {};
    }
    std::string_view b = in_.substr(pos_, n);
    pos_ += n;
    return b;
  }

 private:
  std::string_view in_;
  size_t pos_ = 0;
  bool failed_ = false;
};

bool SameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

uint64_t SnapshotChecksum(std::string_view bytes) {
  // FNV-1a over 64-bit words (then the tail bytes), finished with a MurmurHash3 mix: a
  // multiplication per 8 bytes instead of per byte, which made the checksum a tenth of a
  // judgement's CPU.
  uint64_t h = 1469598103934665603ULL ^ bytes.size();
  size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, bytes.data() + i, 8);
    h = (h ^ w) * 1099511628211ULL;
    h ^= h >> 29;
  }
  h = Fnv1a(bytes.substr(i), h);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

// The one place that knows the detector's private state (a friend of StreamingDetector and of
// ContextNovelty). Fields are written in declaration order; see detector.h for what each means.
struct DetectorStateCodec {
  static void Encode(const StreamingDetector& d, Writer& w) {
    w.U8(static_cast<uint8_t>(d.active_));
    w.SVar(d.slot_resolution_ms_);
    // Training points: timestamps as deltas of deltas (regular series cost a byte a point).
    w.Var(d.training_.size());
    int64_t prev = 0, prev_delta = 0;
    for (const auto& p : d.training_) {
      int64_t delta = p.ts_ms - prev;
      w.SVar(delta - prev_delta);
      prev = p.ts_ms;
      prev_delta = delta;
    }
    for (const auto& p : d.training_) w.F64(p.value);
    // Residuals of every judged point, then those of learnt points as references into them
    // (nearly every learnt residual is also a judged one): 0 and the value when not found.
    w.Var(d.judged_residuals_.size());
    for (float r : d.judged_residuals_) w.F32(r);
    w.Var(d.residuals_.size());
    size_t j = d.judged_residuals_.size();  // candidates are judged_[0, j)
    for (size_t i = d.residuals_.size(); i-- > 0;) {
      float r = d.residuals_[i];
      size_t found = 0;
      for (size_t k = j, tried = 0; k > 0 && tried < kResidualSearch; --k, ++tried)
        if (SameBits(d.judged_residuals_[k - 1], r)) {
          found = j - k + 1;
          j = k - 1;
          break;
        }
      w.Var(found);
      if (!found) w.F32(r);
    }
    w.Var(d.fallback_residuals_.size());
    for (float r : d.fallback_residuals_) w.F32(r);
    // Seasonal slots: each slot's values are usually the last values of training points in that
    // slot; only older ones (their training point already dropped) are written out.
    w.Var(d.slots_.size());
    std::vector<std::vector<double>> by_slot = TrainingBySlot(d);
    for (size_t k = 0; k < d.slots_.size(); ++k) {
      const auto& s = d.slots_[k];
      const auto& t = by_slot.empty() ? std::vector<double>() : by_slot[k];
      size_t m = 0;
      while (m < s.size() && m < t.size() && SameBits(s[s.size() - 1 - m], t[t.size() - 1 - m])) ++m;
      w.Var(s.size() - m);
      for (size_t i = 0; i < s.size() - m; ++i) w.F64(s[i]);
      w.Var(m);
    }
    w.Var(d.intervals_.size());
    for (int64_t x : d.intervals_) w.SVar(x);
    w.F64(d.cached_scale_);
    w.F64(d.cached_fallback_scale_);
    w.F64(d.cached_typical_);
    w.F64(d.cached_level_power_);
    w.Var(d.since_scale_);
    w.Var(d.since_season_check_);
    w.U8(d.last_.has_value());
    if (d.last_) {
      w.SVar(d.last_->ts_ms);
      w.F64(d.last_->value);
    }
    w.Var(d.points_seen_);
    w.Var(d.last_alarm_at_);
    w.F64(d.episode_peak_);
    w.F64(d.episode_busy_);
    w.Var(d.episode_starts_.size());
    for (const auto& [at, peak] : d.episode_starts_) {
      w.Var(at);
      w.F64(peak);
    }
    w.Var(d.marked_.size());
    for (const auto& [value, base] : d.marked_) {
      w.F64(value);
      w.F64(base);
    }
    w.SVar(d.marked_from_ms_);
    w.U8(d.marked_mult_);
    w.U8(d.pending_shift_.has_value());
    if (d.pending_shift_) w.F64(*d.pending_shift_);
    w.U8(d.pending_mult_);
    w.SVar(d.pending_from_ms_);
    w.Var(d.pending_age_);
    w.Var(d.recent_devs_.size());
    for (double x : d.recent_devs_) w.F64(x);
    w.F64(d.recent_sum_);
    w.F64(d.shift_mean_);
    w.F64(d.shift_var_);
    w.Var(d.shift_n_);
    w.F64(d.drift_up_);
    w.F64(d.drift_down_);
    w.Var(d.ramp_.size());
    for (float x : d.ramp_) w.F32(x);
    w.Var(d.stuck_points_);
    w.Var(d.same_run_);
    w.F64(d.repeat_pairs_);
    w.F64(d.all_pairs_);
    w.U8(d.last_learnt_.has_value());
    if (d.last_learnt_) w.F64(*d.last_learnt_);
    w.SVar(d.run_sign_);
    w.Var(d.run_.size());
    for (const auto& [p, r] : d.run_) {
      w.SVar(p.ts_ms);
      w.F64(p.value);
      w.F64(r);
    }
    const ContextNovelty& n = d.novelty_;
    w.U8(n.have_range_);
    w.F64(n.lo_);
    w.F64(n.hi_);
    w.Var(n.recent_.size());
    for (int l : n.recent_) w.Var(static_cast<uint64_t>(l));
    w.Var(n.seen_.size());
    for (uint32_t c : n.seen_) w.Var(c);
    w.Var(n.points_);
    w.Var(d.novel_at_);
  }

  // Fills `d` (freshly constructed with the snapshot's options) from `r`; false when a field is
  // out of range for `d` (the reader's failed() covers truncation).
  static bool Decode(Reader& r, StreamingDetector& d) {
    uint8_t active = r.U8();
    if (active > static_cast<uint8_t>(Seasonality::kDayOfMonth) || active == static_cast<uint8_t>(Seasonality::kAuto))
      return false;
    d.active_ = static_cast<Seasonality>(active);
    d.slot_resolution_ms_ = r.SVar();
    if (d.slot_resolution_ms_ < 0) return false;
    size_t n = r.Count();
    if (n > d.o_.training_points) return false;
    std::vector<int64_t> ts(n);
    int64_t prev = 0, prev_delta = 0;
    for (size_t i = 0; i < n; ++i) {
      prev_delta += r.SVar();
      prev += prev_delta;
      ts[i] = prev;
    }
    d.training_.clear();
    for (size_t i = 0; i < n; ++i) d.training_.push_back({ts[i], r.F64()});
    size_t nj = r.Count();
    if (nj > d.o_.training_points) return false;
    d.judged_residuals_.clear();
    for (size_t i = 0; i < nj; ++i) d.judged_residuals_.push_back(r.F32());
    size_t nr = r.Count();
    if (nr > d.o_.training_points) return false;
    std::vector<float> res(nr);
    size_t j = nj;
    for (size_t i = nr; i-- > 0;) {
      uint64_t found = r.Var();
      if (found == 0) {
        res[i] = r.F32();
      } else {
        if (found > j) return false;
        j -= found;
        res[i] = d.judged_residuals_[j];
      }
    }
    d.residuals_.assign(res.begin(), res.end());
    size_t nf = r.Count();
    if (nf > d.o_.training_points) return false;
    d.fallback_residuals_.clear();
    for (size_t i = 0; i < nf; ++i) d.fallback_residuals_.push_back(r.F32());
    size_t slots = r.Count();
    if (slots == 0 || slots > kMaxSlotCount) return false;
    d.slots_.assign(slots, {});
    std::vector<std::vector<double>> by_slot = TrainingBySlot(d);
    if (slots > 1 && by_slot.empty()) return false;  // a training point outside every slot
    for (size_t k = 0; k < slots; ++k) {
      size_t extra = r.Count();
      for (size_t i = 0; i < extra; ++i) d.slots_[k].push_back(r.F64());
      uint64_t m = r.Var();
      const auto& t = by_slot.empty() ? std::vector<double>() : by_slot[k];
      if (m > t.size() || extra + m > d.o_.season_depth) return false;
      for (size_t i = t.size() - m; i < t.size(); ++i) d.slots_[k].push_back(t[i]);
    }
    size_t ni = r.Count();
    d.intervals_.clear();
    for (size_t i = 0; i < ni; ++i) d.intervals_.push_back(r.SVar());
    d.cached_scale_ = r.F64();
    d.cached_fallback_scale_ = r.F64();
    d.cached_typical_ = r.F64();
    d.cached_level_power_ = r.F64();
    d.since_scale_ = r.Var();
    d.since_season_check_ = r.Var();
    if (r.U8()) {
      int64_t t = r.SVar();
      d.last_ = StreamingDetector::Point{t, r.F64()};
    } else {
      d.last_.reset();
    }
    d.points_seen_ = r.Var();
    d.last_alarm_at_ = r.Var();
    d.episode_peak_ = r.F64();
    d.episode_busy_ = r.F64();
    size_t ne = r.Count();
    d.episode_starts_.clear();
    for (size_t i = 0; i < ne; ++i) {
      size_t at = r.Var();
      d.episode_starts_.push_back({at, r.F64()});
    }
    size_t nm = r.Count();
    if (nm > d.o_.training_points) return false;
    d.marked_.clear();
    for (size_t i = 0; i < nm; ++i) {
      double value = r.F64();
      d.marked_.push_back({value, r.F64()});
    }
    d.marked_from_ms_ = r.SVar();
    d.marked_mult_ = r.U8() != 0;
    if (r.U8()) d.pending_shift_ = r.F64();
    else d.pending_shift_.reset();
    d.pending_mult_ = r.U8() != 0;
    d.pending_from_ms_ = r.SVar();
    d.pending_age_ = r.Var();
    size_t nd = r.Count();
    d.recent_devs_.clear();
    for (size_t i = 0; i < nd; ++i) d.recent_devs_.push_back(r.F64());
    d.recent_sum_ = r.F64();
    d.shift_mean_ = r.F64();
    d.shift_var_ = r.F64();
    d.shift_n_ = r.Var();
    d.drift_up_ = r.F64();
    d.drift_down_ = r.F64();
    if (!(d.drift_up_ >= 0) || !(d.drift_down_ >= 0) || !std::isfinite(d.drift_up_ + d.drift_down_)) return false;
    size_t n_ramp = r.Count();
    if (n_ramp > 72) return false;  // the ramp test keeps at most kRampMaxPoints (detector.cc)
    d.ramp_.clear();
    for (size_t i = 0; i < n_ramp; ++i) d.ramp_.push_back(r.F32());
    d.stuck_points_ = r.Var();
    d.same_run_ = r.Var();
    d.repeat_pairs_ = r.F64();
    d.all_pairs_ = r.F64();
    if (r.U8()) d.last_learnt_ = r.F64();
    else d.last_learnt_.reset();
    int64_t sign = r.SVar();
    if (sign < -1 || sign > 1) return false;
    d.run_sign_ = static_cast<int>(sign);
    size_t nrun = r.Count();
    d.run_.clear();
    for (size_t i = 0; i < nrun; ++i) {
      int64_t t = r.SVar();
      double v = r.F64();
      d.run_.push_back({StreamingDetector::Point{t, v}, r.F64()});
    }
    ContextNovelty& nov = d.novelty_;
    nov.have_range_ = r.U8() != 0;
    nov.lo_ = r.F64();
    nov.hi_ = r.F64();
    size_t nrec = r.Count();
    if (nrec + 1 > nov.depth_ + 1) return false;
    nov.recent_.clear();
    for (size_t i = 0; i < nrec; ++i) {
      uint64_t l = r.Var();
      if (l >= static_cast<uint64_t>(nov.levels_)) return false;
      nov.recent_.push_back(static_cast<int>(l));
    }
    size_t nseen = r.Count();
    if (nseen != nov.seen_.size()) return false;
    for (size_t i = 0; i < nseen; ++i) {
      uint64_t c = r.Var();
      if (c > UINT32_MAX) return false;
      nov.seen_[i] = static_cast<uint32_t>(c);
    }
    nov.points_ = r.Var();
    d.novel_at_ = r.Var();
    return !r.failed();
  }

  // The values of the training points of each slot, oldest first; empty when the detector has
  // a single slot, or when a point falls outside the slots (a damaged snapshot).
  static std::vector<std::vector<double>> TrainingBySlot(const StreamingDetector& d) {
    std::vector<std::vector<double>> out;
    if (d.slots_.size() <= 1) return out;
    out.resize(d.slots_.size());
    for (const auto& p : d.training_) {
      size_t k = d.SlotOf(p.ts_ms);
      if (k >= out.size()) return {};
      out[k].push_back(p.value);
    }
    return out;
  }
};

uint64_t DetectorOptionsHash(const DetectorOptions& o, std::string_view extra) {
  Writer w;
  w.U8(static_cast<uint8_t>(o.seasonality));
  w.U8(static_cast<uint8_t>(o.direction));
  w.F64(o.sensitivity);
  w.F64(o.min_abs_change);
  w.F64(o.min_rel_change);
  w.U8(o.expected_low.has_value());
  w.F64(o.expected_low.value_or(0));
  w.U8(o.expected_high.has_value());
  w.F64(o.expected_high.value_or(0));
  for (size_t v : {o.training_points, o.min_history, o.level_window, o.season_depth,
                   o.level_shift_points, o.relearn_after, o.repeat_quiet_points, o.stuck_min_points})
    w.Var(v);
  w.F64(o.stuck_probability);
  w.F64(o.drift_ramp_z);
  w.Var(extra.size());
  w.Bytes(extra);
  return Fnv1a(w.out());
}

std::string EncodeDetectorState(const StreamingDetector& d, uint64_t options_hash,
                                std::string_view payload) {
  Writer w;
  w.Bytes(std::string_view(kMagic, 4));
  w.U8(kFormat);
  w.Var(kDetectorStateVersion);
  w.Fixed64(options_hash);
  DetectorStateCodec::Encode(d, w);
  w.Var(payload.size());
  w.Bytes(payload);
  w.Fixed64(SnapshotChecksum(w.out()));
  return std::move(w.out());
}

Result<DecodedDetector> DecodeDetectorState(std::string_view bytes, const std::string& metric_name,
                                            const DetectorOptions& options, uint64_t options_hash) {
  if (bytes.size() < 4 + 1 + 1 + 8 + 8 || std::memcmp(bytes.data(), kMagic, 4) != 0)
    return DataLoss("detector snapshot of " + metric_name + " is not a snapshot (" +
                    std::to_string(bytes.size()) + " bytes, no DWDS header)");
  std::string_view body = bytes.substr(0, bytes.size() - 8);
  Reader tail(bytes.substr(bytes.size() - 8));
  if (tail.Fixed64() != SnapshotChecksum(body))
    return DataLoss("detector snapshot of " + metric_name + " fails its checksum (" +
                    std::to_string(bytes.size()) + " bytes): damaged or cut short");
  Reader r(body.substr(4));
  uint8_t format = r.U8();
  uint64_t version = r.Var();
  if (format != kFormat || version != kDetectorStateVersion)
    return FailedPrecondition("detector snapshot of " + metric_name + " was written by detector version " +
                              std::to_string(version) + " (format " + std::to_string(format) +
                              "); this build is version " + std::to_string(kDetectorStateVersion));
  if (r.Fixed64() != options_hash)
    return FailedPrecondition("detector snapshot of " + metric_name +
                              " was learnt with other detector settings");
  if (Status st = ValidateDetectorOptions(options); !st.ok()) return st;
  auto d = std::make_unique<StreamingDetector>(metric_name, options);
  bool fields_ok = DetectorStateCodec::Decode(r, *d);
  size_t payload_size = fields_ok ? r.Count() : 0;
  std::string_view payload = r.Bytes(payload_size);
  if (!fields_ok || r.failed() || r.remaining() != 0)
    return DataLoss("detector snapshot of " + metric_name +
                    " has a field out of range though its checksum matches: refused");
  return DecodedDetector{std::move(d), std::string(payload)};
}

}  // namespace dw::observe::metrics
