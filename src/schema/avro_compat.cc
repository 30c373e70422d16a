#include "schema/avro_compat.h"

#include <algorithm>
#include <map>
#include <set>

namespace dw::schema::avro {
namespace {

// One pair's result; `in_progress` while its check runs (a recursive type met again reads as
// compatible, as in Avro's checker).
struct Memo {
  bool in_progress = true;
  std::vector<Difference> found;
};

class Checker {
 public:
  std::vector<Difference> Check(const Node& reader, const Node& writer) { return Get(reader, writer); }

 private:
  std::string Location() const {
    std::string out;
    for (const auto& s : location_) out += "/" + s;
    return out.empty() ? "/" : out;
  }

  // Avro memoises each (reader, writer) pair by identity: a pair met again reuses the first
  // result, and a pair met while it is being checked (recursion) is compatible.
  std::vector<Difference> Get(const Node& reader, const Node& writer) {
    // Only named types can be met twice (every other node is its own occurrence) or recursively,
    // so only their pairs are remembered: the same answers as Avro's, without a map entry per field.
    if (!reader.named() || !writer.named()) return Calculate(reader, writer);
    auto key = std::make_pair(&reader, &writer);
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second.in_progress ? std::vector<Difference>{} : it->second.found;
    memo_[key] = Memo{};
    std::vector<Difference> found = Calculate(reader, writer);
    memo_[key] = Memo{false, found};
    return found;
  }

  Difference Mismatch(const Node& reader, const Node& writer) const {
    return {"TYPE_MISMATCH", Location(),
            std::string("reader type: ") + TypeName(reader.type) + " not compatible with writer type: " + TypeName(writer.type), ""};
  }

  static bool NameEquals(const Node& reader, const Node& writer) {
    if (reader.name == writer.name) return true;
    std::string full = writer.full_name();
    for (const auto& a : reader.aliases)
      if (a == full) return true;
    return false;
  }

  void Names(const Node& reader, const Node& writer, std::vector<Difference>& out) {
    if (NameEquals(reader, writer)) return;
    location_.push_back("name");
    out.push_back({"NAME_MISMATCH", Location(), "expected: " + writer.full_name(), ""});
    location_.pop_back();
  }

  static void Append(std::vector<Difference>& out, std::vector<Difference> more) {
    for (auto& d : more) out.push_back(std::move(d));
  }

  const Field* WriterField(const Node& writer, const Field& reader_field) const {
    auto it = writer.field_index.find(reader_field.name);
    if (it != writer.field_index.end()) return &writer.fields[it->second];
    for (const auto& alias : reader_field.aliases) {
      it = writer.field_index.find(alias);
      if (it != writer.field_index.end()) return &writer.fields[it->second];
    }
    return nullptr;
  }

  void Fields(const Node& reader, const Node& writer, std::vector<Difference>& out) {
    location_.push_back("fields");
    for (const Field& rf : reader.fields) {
      location_.push_back(std::to_string(rf.position));
      const Field* wf = WriterField(writer, rf);
      if (!wf) {
        if (!rf.has_default) out.push_back({"READER_FIELD_MISSING_DEFAULT_VALUE", Location(), rf.name, rf.name});
      } else {
        location_.push_back("type");
        auto found = Get(*rf.type, *wf->type);
        for (auto& d : found)
          if (d.field.empty()) d.field = rf.name;
        Append(out, std::move(found));
        location_.pop_back();
      }
      location_.pop_back();
    }
    location_.pop_back();
  }

  void Symbols(const Node& reader, const Node& writer, std::vector<Difference>& out) {
    location_.push_back("symbols");
    std::set<std::string> missing(writer.symbols.begin(), writer.symbols.end());
    for (const auto& s : reader.symbols) missing.erase(s);
    bool has_default = reader.enum_default &&
                       std::find(reader.symbols.begin(), reader.symbols.end(), *reader.enum_default) != reader.symbols.end();
    if (!missing.empty() && !has_default) {
      std::string info = "[";
      for (const auto& s : missing) info += (info.size() > 1 ? ", " : "") + s;
      out.push_back({"MISSING_ENUM_SYMBOLS", Location(), info + "]", ""});
    }
    location_.pop_back();
  }

  std::vector<Difference> Calculate(const Node& reader, const Node& writer) {
    std::vector<Difference> out;
    if (reader.type == writer.type) {
      switch (reader.type) {
        case Type::kEnum:
          Names(reader, writer, out);
          Symbols(reader, writer, out);
          return out;
        case Type::kFixed:
          Names(reader, writer, out);
          if (reader.size != writer.size) {
            location_.push_back("size");
            out.push_back({"FIXED_SIZE_MISMATCH", Location(),
                           "expected: " + std::to_string(writer.size) + ", found: " + std::to_string(reader.size), ""});
            location_.pop_back();
          }
          return out;
        case Type::kRecord:
          Names(reader, writer, out);
          Fields(reader, writer, out);
          return out;
        case Type::kArray:
        case Type::kMap:
          location_.push_back(reader.type == Type::kArray ? "items" : "values");
          Append(out, Get(*reader.items, *writer.items));
          location_.pop_back();
          return out;
        case Type::kUnion:
          // Every branch of the writer's union must be readable by the reader's union.
          for (size_t i = 0; i < writer.branches.size(); ++i) {
            location_.push_back(std::to_string(i));
            if (!Get(reader, *writer.branches[i]).empty())
              out.push_back({"MISSING_UNION_BRANCH", Location(),
                             std::string("reader union lacking writer type: ") + TypeName(writer.branches[i]->type), ""});
            location_.pop_back();
          }
          return out;
        default:
          return out;  // same primitive
      }
    }
    // Different types. A reader that reads every branch of a writer union reads the union.
    if (writer.type == Type::kUnion) {
      for (size_t i = 0; i < writer.branches.size(); ++i) {
        location_.push_back(std::to_string(i));
        Append(out, Get(reader, *writer.branches[i]));
        location_.pop_back();
      }
      return out;
    }
    switch (reader.type) {
      case Type::kLong:
        if (writer.type != Type::kInt) out.push_back(Mismatch(reader, writer));
        return out;
      case Type::kFloat:
        if (writer.type != Type::kInt && writer.type != Type::kLong) out.push_back(Mismatch(reader, writer));
        return out;
      case Type::kDouble:
        if (writer.type != Type::kInt && writer.type != Type::kLong && writer.type != Type::kFloat)
          out.push_back(Mismatch(reader, writer));
        return out;
      case Type::kBytes:
        if (writer.type != Type::kString) out.push_back(Mismatch(reader, writer));
        return out;
      case Type::kString:
        if (writer.type != Type::kBytes) out.push_back(Mismatch(reader, writer));
        return out;
      case Type::kUnion:
        // The first reader branch that reads the writer's type is used; none is an error.
        for (const Node* b : reader.branches)
          if (Get(*b, writer).empty()) return out;
        out.push_back({"MISSING_UNION_BRANCH", Location(),
                       std::string("reader union lacking writer type: ") + TypeName(writer.type), ""});
        return out;
      default:
        out.push_back(Mismatch(reader, writer));
        return out;
    }
  }

  std::vector<std::string> location_;
  std::map<std::pair<const Node*, const Node*>, Memo> memo_;
};

void DecimalNotes(const Node& reader, const Node& writer, const std::string& path, int depth,
                  std::set<std::pair<const Node*, const Node*>>& seen, std::vector<std::string>& out) {
  if (depth > kMaxNesting || (reader.named() && writer.named() && !seen.insert({&reader, &writer}).second)) return;
  if (reader.logical_type == "decimal" && writer.logical_type == "decimal" &&
      (reader.precision != writer.precision || reader.scale != writer.scale))
    out.push_back("decimal at " + (path.empty() ? std::string("/") : path) + " changes from (" +
                  std::to_string(writer.precision) + "," + std::to_string(writer.scale) + ") to (" +
                  std::to_string(reader.precision) + "," + std::to_string(reader.scale) +
                  "): the registry accepts it, but values are read with the new scale");
  if (reader.type == Type::kRecord && writer.type == Type::kRecord) {
    for (const Field& rf : reader.fields) {
      auto it = writer.field_index.find(rf.name);
      if (it != writer.field_index.end())
        DecimalNotes(*rf.type, *writer.fields[it->second].type, path + "/fields/" + std::to_string(rf.position) + "/type",
                     depth + 1, seen, out);
    }
  } else if ((reader.type == Type::kArray && writer.type == Type::kArray) || (reader.type == Type::kMap && writer.type == Type::kMap)) {
    DecimalNotes(*reader.items, *writer.items, path + (reader.type == Type::kArray ? "/items" : "/values"), depth + 1, seen, out);
  }
}

}  // namespace

std::vector<Difference> ReadDifferences(const Schema& reader, const Schema& writer) {
  Checker c;
  return c.Check(*reader.root(), *writer.root());
}

std::vector<std::string> ReadNotes(const Schema& reader, const Schema& writer) {
  std::vector<std::string> out;
  std::set<std::pair<const Node*, const Node*>> seen;
  DecimalNotes(*reader.root(), *writer.root(), "", 0, seen, out);
  return out;
}

}  // namespace dw::schema::avro
