// The decision search of the exact planner for one independent subproblem: do
// these items fit below a given height? (dsa_search.cpp wraps it into the
// minimisation and splits the pool at static cut-lines first.)
//
// Sections are the elementary time intervals between consecutive distinct
// endpoints. An item's offset, while it is unplaced, is the highest top of the
// placed items it conflicts with (the max of the floors of its sections), rounded
// up to its alignment. The search only ever places an item at its offset.
//
// Canonical placements (no item aligned beyond 1 byte). Every valid plan, pushed
// down as far as it goes, can be rebuilt by always placing at the *lowest*
// offset m any unplaced item can currently take, so that is all the search ever
// does: offsets never decrease along a branch and every unplaced item ends at m
// or above. The items placed at one offset m are pairwise disjoint in time, and
// every item whose offset is m either goes there or conflicts with one that does
// (otherwise its offset would still be m and the search would still be at m):
// they form a maximal set of disjoint items among those at m. Branching on the
// best item at m first, then the next one with the first excluded from m, and so
// on, enumerates each such set once; an excluded item that no remaining item at
// m overlaps can never be placed, and the node fails.
//
// With alignment the lowest-offset rule is not complete (an item may have to wait
// above an alignment gap), so when some item is aligned the search also allows
// "no more items at m": the items left at m then wait until a placement lifts them.
//
// Per node, in the part of the time axis being searched:
//  - capacity floors: in every section, the lowest offset any of its unplaced
//    items can still take (at least m; above m for an excluded or waiting item)
//    plus their total size must fit under the height;
//  - an item at m that overlaps no other item at m is in every maximal set, and
//    an item no unplaced item conflicts with can only ever go at its offset: such
//    items are placed without alternatives;
//  - identical items (same interval, size, alignment) are placed in index order;
//  - when no unplaced item crosses some section boundary, the parts left and
//    right of it are independent: each is searched on its own, and if one fails
//    the node fails without trying other arrangements of the others;
//  - failed states are remembered (a 128-bit fingerprint of the unplaced items
//    with their offsets and exclusions, which is all the future depends on) in a
//    table of bounded size.
//
// Which item to try first at m: one that fills its valley of the skyline (its
// neighbouring sections are higher, so nothing else could share the level with
// it there), then one whose top levels with a neighbour, then the longest-lived,
// then the largest. A dive can still commit early to an arrangement that fails
// much later, so the search restarts after a number of nodes following the Luby
// sequence, breaking the remaining ties in a different (seeded, so reproducible)
// order each time. Failed states stay remembered across restarts: they are
// proofs, whatever the order that found them.
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

  struct Part {
    int lo, hi;     // sections [lo, hi)
    uint64_t load;  // the most unplaced bytes live in one of its sections
  };

  // The search over sections [lo, hi) at `level` (the offset last placed at); its steps:
  bool solve(int lo, int hi, uint64_t level);
  int parts(int lo, int hi, Part& first, std::vector<Part>& more) const;
  bool solve_parts(std::vector<Part>& parts, uint64_t level);
  uint64_t lowest_offset(int ib, int ie, uint64_t level, bool& any_waiting);
  bool waiting_items_can_move(int ib, int ie, uint64_t level, size_t base, size_t end) const;
  int forced_item(size_t base, size_t end) const;
  bool branch(int lo, int hi, uint64_t m, size_t base, size_t end);
  bool sections_fit(int lo, int hi, uint64_t m, uint64_t level);
  void place(int b, uint64_t at);
  void unplace_to(size_t mark);
  void exclude(int b, uint64_t at);
  void unexclude_to(size_t mark);
  uint64_t offset_of(int b) const;
  bool waiting(int b, uint64_t o, uint64_t level) const;
  bool memo_has(uint64_t k1, uint64_t k2) const;
  void memo_add(uint64_t k1, uint64_t k2);

  std::vector<int> ids_;
  std::vector<uint64_t> offsets_;
  std::vector<Item> items_;              // sorted by start section, then longest, then largest
  std::vector<int> first_item_;          // per section s: first item with s0 >= s (nsec_ + 1 entries)
  std::vector<std::vector<int>> conflicts_;
  std::vector<std::vector<int>> cover_;  // per section: the items live there, shortest first
  std::vector<int> rank_;                // static preference: longest, then largest
  std::vector<uint64_t> zkey_;           // per item: fingerprint keys (two per item)
  int nsec_ = 0;

  // Search state.
  uint64_t cap_ = 0;
  SearchBudget* budget_ = nullptr;
  bool out_of_budget_ = false;
  bool may_wait_ = false;                // some item is aligned: items may wait above their offset
  uint64_t run_left_ = 0;                // nodes left before the next restart
  std::vector<int> tiebreak_;            // per item: order among equally good choices in this run
  std::vector<uint64_t> top_;            // per item: highest top of the placed items it conflicts with
  std::vector<uint64_t> at_;             // per placed item: its offset
  std::vector<uint64_t> excl_;           // per item: the offset it was excluded at (UINT64_MAX: none)
  std::vector<uint64_t> rem_;            // per section: total size of the unplaced items live there
  std::vector<uint64_t> floor_;          // per section: highest top of the placed items live there
  std::vector<int> witness_;             // per section: an item that last proved its capacity floor
  std::vector<int> cross_;               // per boundary t: unplaced items with s0 < t < s1
  std::vector<char> placed_;
  std::vector<int> next_, prev_;         // unplaced items, a doubly linked list in index order
  std::vector<int> placed_stack_;
  std::vector<std::pair<int, uint64_t>> top_undo_;
  std::vector<uint64_t> floor_undo_;
  std::vector<size_t> undo_mark_;        // per placed item: top_undo_ size before it
  std::vector<std::pair<int, uint64_t>> excl_undo_;
  std::vector<std::pair<uint64_t, uint64_t>> hash_undo_;
  uint64_t h1_ = 0, h2_ = 0;             // fingerprint of the unplaced items, offsets and exclusions
  std::vector<int> scratch_;             // candidate lists of the active nodes (a stack)
  std::vector<std::pair<uint64_t, uint64_t>> memo_;  // open addressing, (0,0) = empty
  size_t memo_used_ = 0;
};

}  // namespace kiln::planner
