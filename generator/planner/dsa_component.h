// The decision search of the exact planner for one independent subproblem: do
// these items fit below a given height? (dsa_search.cpp wraps it into the
// minimisation and splits the pool at static cut-lines first.)
//
// A solution is listed in canonical order: push every item down as far as it
// goes (each then rests on 0 or on the top of an item it conflicts with) and
// sort by (address, start section). Each item's address is then the highest top
// among the earlier-listed items it conflicts with (its "floor"), so the search
// only decides what comes next. It walks a cursor through the positions
// (address, start section) in increasing order: at the lowest position where some
// item could go (its floor is that address and it starts there), either one of
// those items goes there, or the position stays empty ("skip"). Items at one
// position all live in its start section, so at most one of them can take it.
//
// Per node, in the part of the time axis being searched:
//  - an item whose floor is behind the cursor must later rest on an unplaced
//    item it conflicts with; its lowest possible address is that item's lowest
//    address plus its size; with no such item the node fails;
//  - capacity floors: in every section, the lowest possible address of its
//    unplaced items plus their total size must fit under the height;
//  - an item no unplaced item conflicts with can only ever go at its floor, so
//    when it is at the lowest position it is placed without alternatives;
//  - identical items are placed in index order only;
//  - when no unplaced item crosses some section boundary, the parts left and
//    right of it are independent: each is searched on its own, and if one fails
//    the node fails without trying other arrangements of the others;
//  - the failed states are remembered (a 128-bit fingerprint of the part's
//    unplaced items and the floors of those ahead of the cursor, which is all
//    its future depends on) in a fixed-size table.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/dsa_search.h"

namespace kiln::planner {

class ComponentSearch {
 public:
  enum class Result { Found, Infeasible, OutOfBudget };

  // `ids` index `all`; every listed item has a non-empty interval and size.
  ComponentSearch(const std::vector<DsaItem>& all, std::vector<int> ids);

  const std::vector<int>& ids() const { return ids_; }
  // Offsets per entry of ids(), valid after Found.
  const std::vector<uint64_t>& offsets() const { return offsets_; }

  Result decide(uint64_t capacity, SearchBudget* budget);

 private:
  struct Item {
    int s0, s1;  // live in sections [s0, s1)
    uint64_t size;
    uint32_t align;
    int twin_prev;  // previous identical item, or -1
    int id_index;   // index into ids_
  };
  struct Cursor {
    uint64_t level;
    int start;
  };

  bool solve(int lo, int hi, Cursor cur);
  bool split(int lo, int hi, Cursor cur, bool* result);
  void place(int b, uint64_t at);
  void unplace_to(size_t mark);
  bool memo_has(uint64_t k1, uint64_t k2) const;
  void memo_add(uint64_t k1, uint64_t k2);

  std::vector<int> ids_;
  std::vector<uint64_t> offsets_;
  std::vector<Item> items_;              // sorted by start section, then longest, then largest
  std::vector<int> first_item_;          // per section s: first item with s0 >= s (nsec_ + 1 entries)
  std::vector<std::vector<int>> conflicts_;
  int nsec_ = 0;

  // Search state.
  uint64_t cap_ = 0;
  SearchBudget* budget_ = nullptr;
  bool out_of_budget_ = false;
  std::vector<uint64_t> floor_, at_, rem_, low_, early_;
  std::vector<int> cross_;               // per boundary t: unplaced items with s0 < t < s1
  std::vector<char> placed_, ahead_;
  std::vector<int> placed_stack_;
  std::vector<std::pair<int, uint64_t>> floor_undo_;
  std::vector<size_t> undo_mark_;        // per placed item: floor_undo_ size before it
  std::vector<int> scratch_;             // candidate lists of the active nodes (a stack)
  std::vector<std::pair<uint64_t, uint64_t>> memo_;  // open addressing, (0,0) = empty
  size_t memo_used_ = 0;
  std::vector<std::vector<int>> rank_;    // per candidate rule: item -> rank
  const std::vector<int>* rank_now_ = nullptr;
  uint64_t slice_left_ = 0;
};

}  // namespace kiln::planner
