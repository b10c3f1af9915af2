// Name resolution: comprehension variables (innermost first), then the caller's names (slots), then
// builtins. Marks constant subtrees (no slot read, no local bound outside them) for folding.
#include <algorithm>

#include "expr/parser.h"

namespace tune::expr::detail {

namespace {

class Resolver {
 public:
  Resolver(Ast& ast, std::span<const std::string> names, std::string_view src, const Location& where)
      : ast_(ast), names_(names), src_(src), where_(where) {}

  std::vector<std::size_t> run() {
    visit(ast_.root);
    std::sort(used_.begin(), used_.end());
    used_.erase(std::unique(used_.begin(), used_.end()), used_.end());
    return used_;
  }

 private:
  // What a subtree reads from outside itself.
  struct Free {
    bool slot = false;
    std::vector<std::uint32_t> locals;
    void merge(const Free& other) {
      slot = slot || other.slot;
      locals.insert(locals.end(), other.locals.begin(), other.locals.end());
    }
  };

  [[noreturn]] void fail(std::uint32_t col, const std::string& cause) const { throw Error(where_, src_, col, cause); }

  std::optional<std::uint32_t> find_local(const std::string& name) const {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
      if (it->first == name) return it->second;
    return std::nullopt;
  }

  std::optional<std::size_t> find_slot(const std::string& name) const {
    auto it = std::find(names_.begin(), names_.end(), name);
    if (it == names_.end()) return std::nullopt;
    return static_cast<std::size_t>(it - names_.begin());
  }

  Free visit(std::uint32_t id) {
    Free free;
    if (id == kNoNode) return free;
    Node& n = ast_.nodes[id];
    switch (n.kind) {
      case Kind::Name:
        if (auto local = find_local(n.name)) {
          n.ref = Ref::Local;
          n.index = *local;
          free.locals.push_back(*local);
        } else if (auto slot = find_slot(n.name)) {
          n.ref = Ref::Slot;
          n.index = static_cast<std::uint32_t>(*slot);
          used_.push_back(*slot);
          free.slot = true;
        } else if (find_builtin(n.name)) {
          fail(n.col, "builtin '" + n.name + "' can only be called");
        } else {
          fail(n.col, "unknown name '" + n.name + "'");
        }
        break;
      case Kind::Call: {
        if (find_local(n.name) || find_slot(n.name)) fail(n.col, "'" + n.name + "' is not callable");
        auto builtin = find_builtin(n.name);
        if (!builtin) fail(n.col, "unknown name '" + n.name + "'");
        std::string arity = check_arity(*builtin, n.kids.size());
        if (!arity.empty()) fail(n.col, arity);
        n.op = static_cast<std::uint8_t>(*builtin);
        for (std::uint32_t k : n.kids) free.merge(visit(k));
        break;
      }
      case Kind::Comp: {
        std::size_t depth = scope_.size();
        std::vector<std::uint32_t> bound;
        n.locals.assign(n.ops.size(), 0);
        for (std::size_t c = 0; c < n.ops.size(); ++c) {
          free.merge(visit(n.kids[c + 1]));
          if (static_cast<Clause>(n.ops[c]) == Clause::For) {
            if (ast_.num_locals >= UINT16_MAX) fail(n.cols[c], "too many comprehension variables");
            n.locals[c] = ast_.num_locals++;
            bound.push_back(n.locals[c]);
            scope_.emplace_back(n.names[c], n.locals[c]);
          }
        }
        free.merge(visit(n.kids[0]));
        scope_.resize(depth);
        std::erase_if(free.locals,
                      [&](std::uint32_t l) { return std::find(bound.begin(), bound.end(), l) != bound.end(); });
        break;
      }
      default:
        for (std::uint32_t k : n.kids) free.merge(visit(k));
    }
    n.constant = !free.slot && free.locals.empty();
    return free;
  }

  Ast& ast_;
  std::span<const std::string> names_;
  std::string_view src_;
  const Location& where_;
  std::vector<std::pair<std::string, std::uint32_t>> scope_;
  std::vector<std::size_t> used_;
};

}  // namespace

std::vector<std::size_t> resolve(Ast& ast, std::span<const std::string> names, std::string_view source,
                                 const Location& where) {
  return Resolver(ast, names, source, where).run();
}

}  // namespace tune::expr::detail
