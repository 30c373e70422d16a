// A SQLite VFS shim for fault injection below the state store (docs/RELIABILITY.md): it wraps the
// default VFS (sqlite3_vfs_register as the new default, so every connection the product opens
// goes through it) and, for files under one folder only, fails writes (SQLITE_IOERR_WRITE), fails
// fsyncs (SQLITE_IOERR_FSYNC) or reports a full disk (SQLITE_FULL) while a fault is set. Every
// other call is passed to the real VFS unchanged. It counts the faults it injected, so a test can
// tell that its fault was met and not merely set.
#pragma once

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <string>

namespace dw::store::test_support {

class FaultyVfs {
 public:
  enum class Fault { kNone, kWrite, kFsync, kDiskFull };

  // Registers the shim (once per process) as the default VFS, faulting files under `folder`.
  static FaultyVfs& Install(const std::string& folder) {
    static FaultyVfs* vfs = new FaultyVfs();  // lives as long as the process: SQLite holds it
    Instance() = vfs;
    std::lock_guard<std::mutex> lock(vfs->mu_);
    vfs->folder_ = folder;
    vfs->fault_ = Fault::kNone;
    return *vfs;
  }

  void Set(Fault f) { fault_ = f; }
  int injected() const { return injected_; }

 private:
  struct File {
    sqlite3_file base;  // must be first: SQLite sees this
    bool faulty;
    sqlite3_file* real() { return reinterpret_cast<sqlite3_file*>(this + 1); }
  };

  static FaultyVfs*& Instance() {
    static FaultyVfs* vfs = nullptr;
    return vfs;
  }
  static FaultyVfs& Me() { return *Instance(); }
  static sqlite3_file* Real(sqlite3_file* f) { return reinterpret_cast<File*>(f)->real(); }
  static bool Faulty(sqlite3_file* f) { return reinterpret_cast<File*>(f)->faulty; }

  static int Close(sqlite3_file* f) {
    int rc = Real(f)->pMethods != nullptr ? Real(f)->pMethods->xClose(Real(f)) : SQLITE_OK;
    return rc;
  }
  static int Read(sqlite3_file* f, void* buf, int n, sqlite3_int64 off) {
    return Real(f)->pMethods->xRead(Real(f), buf, n, off);
  }
  static int Write(sqlite3_file* f, const void* buf, int n, sqlite3_int64 off) {
    if (Faulty(f)) {
      const Fault fault = Me().fault_;
      if (fault == Fault::kWrite) return ++Me().injected_, SQLITE_IOERR_WRITE;
      if (fault == Fault::kDiskFull) return ++Me().injected_, SQLITE_FULL;
    }
    return Real(f)->pMethods->xWrite(Real(f), buf, n, off);
  }
  static int Truncate(sqlite3_file* f, sqlite3_int64 size) { return Real(f)->pMethods->xTruncate(Real(f), size); }
  static int Sync(sqlite3_file* f, int flags) {
    if (Faulty(f) && Me().fault_ == Fault::kFsync) return ++Me().injected_, SQLITE_IOERR_FSYNC;
    return Real(f)->pMethods->xSync(Real(f), flags);
  }
  static int FileSize(sqlite3_file* f, sqlite3_int64* size) { return Real(f)->pMethods->xFileSize(Real(f), size); }
  static int Lock(sqlite3_file* f, int level) { return Real(f)->pMethods->xLock(Real(f), level); }
  static int Unlock(sqlite3_file* f, int level) { return Real(f)->pMethods->xUnlock(Real(f), level); }
  static int CheckReservedLock(sqlite3_file* f, int* out) { return Real(f)->pMethods->xCheckReservedLock(Real(f), out); }
  static int FileControl(sqlite3_file* f, int op, void* arg) { return Real(f)->pMethods->xFileControl(Real(f), op, arg); }
  static int SectorSize(sqlite3_file* f) { return Real(f)->pMethods->xSectorSize(Real(f)); }
  static int DeviceCharacteristics(sqlite3_file* f) { return Real(f)->pMethods->xDeviceCharacteristics(Real(f)); }
  static int ShmMap(sqlite3_file* f, int region, int size, int extend, void volatile** p) {
    return Real(f)->pMethods->xShmMap(Real(f), region, size, extend, p);
  }
  static int ShmLock(sqlite3_file* f, int offset, int n, int flags) { return Real(f)->pMethods->xShmLock(Real(f), offset, n, flags); }
  static void ShmBarrier(sqlite3_file* f) { Real(f)->pMethods->xShmBarrier(Real(f)); }
  static int ShmUnmap(sqlite3_file* f, int del) { return Real(f)->pMethods->xShmUnmap(Real(f), del); }
  static int Fetch(sqlite3_file* f, sqlite3_int64 off, int n, void** p) { return Real(f)->pMethods->xFetch(Real(f), off, n, p); }
  static int Unfetch(sqlite3_file* f, sqlite3_int64 off, void* p) { return Real(f)->pMethods->xUnfetch(Real(f), off, p); }

  static int Open(sqlite3_vfs* vfs, sqlite3_filename name, sqlite3_file* out, int flags, int* out_flags) {
    FaultyVfs& me = *static_cast<FaultyVfs*>(vfs->pAppData);
    File* f = reinterpret_cast<File*>(out);
    std::memset(out, 0, sizeof(File));
    int rc = me.real_->xOpen(me.real_, name, f->real(), flags, out_flags);
    {
      std::lock_guard<std::mutex> lock(me.mu_);
      f->faulty = name != nullptr && !me.folder_.empty() && std::strncmp(name, me.folder_.c_str(), me.folder_.size()) == 0;
    }
    // SQLite calls xClose only when pMethods is set; pass the real file's failure on as it is.
    // The same version of io methods as the real file's, so SQLite never calls a method it lacks.
    const sqlite3_io_methods* real = f->real()->pMethods;
    out->pMethods = real == nullptr ? nullptr : &me.methods_[std::clamp(real->iVersion, 1, 3) - 1];
    return rc;
  }
  static int Delete(sqlite3_vfs* v, const char* name, int sync) {
    FaultyVfs& me = *static_cast<FaultyVfs*>(v->pAppData);
    return me.real_->xDelete(me.real_, name, sync);
  }
  static int Access(sqlite3_vfs* v, const char* name, int flags, int* out) {
    FaultyVfs& me = *static_cast<FaultyVfs*>(v->pAppData);
    return me.real_->xAccess(me.real_, name, flags, out);
  }
  static int FullPathname(sqlite3_vfs* v, const char* name, int n, char* out) {
    FaultyVfs& me = *static_cast<FaultyVfs*>(v->pAppData);
    return me.real_->xFullPathname(me.real_, name, n, out);
  }

  FaultyVfs() {
    real_ = sqlite3_vfs_find(nullptr);
    vfs_ = *real_;  // dlopen, randomness, sleep, time and the rest: the real VFS's own
    vfs_.zName = "dw-faulty";
    vfs_.pNext = nullptr;
    vfs_.szOsFile = static_cast<int>(sizeof(File)) + real_->szOsFile;
    vfs_.pAppData = this;
    vfs_.xOpen = &Open;
    vfs_.xDelete = &Delete;
    vfs_.xAccess = &Access;
    vfs_.xFullPathname = &FullPathname;
    // Versions 1 to 3 of the io methods (2 adds WAL's shared memory, 3 mmap).
    for (int v = 1; v <= 3; ++v)
      methods_[v - 1] = {v, &Close, &Read, &Write, &Truncate, &Sync, &FileSize, &Lock, &Unlock, &CheckReservedLock,
                         &FileControl, &SectorSize, &DeviceCharacteristics, &ShmMap, &ShmLock, &ShmBarrier,
                         &ShmUnmap, &Fetch, &Unfetch};
    sqlite3_vfs_register(&vfs_, /*makeDflt=*/1);
  }

  sqlite3_vfs* real_ = nullptr;
  sqlite3_vfs vfs_{};
  sqlite3_io_methods methods_[3]{};
  std::mutex mu_;
  std::string folder_;
  std::atomic<Fault> fault_{Fault::kNone};
  std::atomic<int> injected_{0};
};

}  // namespace dw::store::test_support
