//! `pick_eevdf()`: Earliest Eligible Virtual Deadline First, in both tree
//! layouts the kernel has used.
//!
//! Of the entities that are owed service (eligible: v_i ≤ V), run the one
//! whose virtual deadline comes first. An augmented red-black tree finds it in
//! O(log n):
//! - v6.8+ sort by deadline and keep each subtree's minimum vruntime. Walking
//!   down, a left subtree whose min vruntime is eligible holds the answer
//!   (everything there has an earlier deadline); otherwise the node itself if
//!   eligible; otherwise go right. The leftmost node is cached, so when it is
//!   eligible the answer costs O(1) (PICK_FASTPATH).
//! - v6.6 sort by vruntime and keep each subtree's minimum deadline. Every
//!   node left of an eligible node is eligible, so the search remembers the
//!   best left subtree by min_deadline and may need a second descent into it
//!   ("sched/eevdf: Fix pick_eevdf()"); before that fix (the EEVDF RFC,
//!   PICK_BEST_LEFT off) one descent that could miss it.

use crate::kernel::sched::features::Feature::*;
use crate::kernel::sched::cfs_rq::Eligibility;
use crate::kernel::lib::rbtree::NIL;
use crate::kernel::sched::core::Sched;
use crate::lab::trace::PickReason;
use crate::kernel::sched::weight::before;

/// Longest path recorded (two descents of a tree of 2^40 entities fit).
pub const MAX_PATH: usize = 160;

/// What the last pick_eevdf() looked at: its reason and the entities it
/// visited, in order. Fixed size so picking never allocates.
#[derive(Clone, Debug)]
pub struct PickTrace {
    pub reason: PickReason,
    pub path: [u32; MAX_PATH],
    pub len: usize,
}

impl Default for PickTrace {
    fn default() -> Self {
        PickTrace { reason: PickReason::HeapSearch, path: [NIL; MAX_PATH], len: 0 }
    }
}

impl PickTrace {
    #[inline]
    pub fn reset(&mut self, reason: PickReason) {
        self.reason = reason;
        self.len = 0;
    }

    #[inline]
    fn visit(&mut self, se: u32) {
        if self.len < MAX_PATH {
            self.path[self.len] = se;
            self.len += 1;
        }
    }

    pub fn path(&self) -> &[u32] {
        &self.path[..self.len]
    }
}

/// Pick statistics, as seed 000's patch 4/4 ("sched/stats: Add statistics
/// for pick_eevdf()") counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PickStats {
    /// Calls of __pick_eevdf().
    pub picks: u64,
    /// Answered by the cached leftmost entity (O(1)).
    pub fastpath: u64,
    /// Needed the tree walk.
    pub slowpath: u64,
    /// Tree nodes visited by the walks.
    pub nodes_visited: u64,
    /// The longest single walk (the worst case the v6.8 tree halves).
    pub max_walk: u64,
    /// Returned the running entity because it was protected.
    pub protected: u64,
    /// Answered with the only queued entity.
    pub single: u64,
    /// Honoured the next buddy (pick_next_entity()).
    pub buddy_picks: u64,
}

impl Sched {
    /// Mirrors `pick_eevdf()` (fair.c): `__pick_eevdf()` with protection, and
    /// (v6.6) the leftmost entity when the search finds nothing.
    pub(crate) fn pick_eevdf(&mut self, q: u32) -> u32 {
        let se = self.__pick_eevdf(q, true);
        if se != NIL {
            return se;
        }
        // v6.6: pr_err("EEVDF scheduling fail, picking leftmost").
        self.pick_trace.reason = PickReason::Fallback;
        self.cfs_rqs[q as usize].tree.first()
    }

    /// Mirrors `__pick_eevdf()` (fair.c): v6.18 with `protect`; v6.8–v6.16
    /// `pick_eevdf()` (protection is RUN_TO_PARITY's; the kernel always
    /// applies it, schedlab passes `protect = true` there too and uses false
    /// only to check invariants); v6.6 with the vruntime-sorted tree.
    pub(crate) fn __pick_eevdf(&mut self, q: u32, protect: bool) -> u32 {
        self.stats.picks += 1;
        self.pick_trace.reset(PickReason::HeapSearch);
        let se = if self.feat.has(DEADLINE_TREE) {
            self.pick_eevdf_by_deadline(q, protect)
        } else if self.feat.has(PICK_BEST_LEFT) {
            self.pick_eevdf_by_vruntime(q, protect)
        } else {
            self.pick_eevdf_rfc(q)
        };
        self.stats.nodes_visited += self.pick_trace.len as u64;
        self.stats.max_walk = self.stats.max_walk.max(self.pick_trace.len as u64);
        match self.pick_trace.reason {
            PickReason::Leftmost => self.stats.fastpath += 1,
            PickReason::Protected => self.stats.protected += 1,
            PickReason::Single => self.stats.single += 1,
            _ if self.pick_trace.len > 0 => self.stats.slowpath += 1,
            _ => {}
        }
        se
    }

    /// The running entity if it may be picked at all: queued and eligible.
    fn eligible_curr(&self, q: u32, el: &Eligibility) -> u32 {
        let curr = self.cfs_rqs[q as usize].curr;
        if curr != NIL && (!self.ents[curr as usize].on_rq || !el.eligible(self.ents[curr as usize].vruntime)) {
            return NIL;
        }
        curr
    }

    /// v6.8+: tree sorted by deadline, augmented with min vruntime.
    fn pick_eevdf_by_deadline(&mut self, q: u32, protect: bool) -> u32 {
        let cfs = &self.cfs_rqs[q as usize];
        let first = cfs.tree.first();
        if self.feat.has(PICK_FASTPATH) && cfs.nr_queued == 1 {
            self.pick_trace.reason = PickReason::Single;
            let curr = cfs.curr;
            return if curr != NIL && self.ents[curr as usize].on_rq { curr } else { first };
        }
        let el = self.eligibility(q);
        let curr = self.eligible_curr(q, &el);
        if curr != NIL && protect && self.curr_protected(curr) {
            self.pick_trace.reason = PickReason::Protected;
            return curr;
        }
        let mut best = NIL;
        if self.feat.has(PICK_FASTPATH) && first != NIL && el.eligible(self.ents[first as usize].vruntime) {
            self.pick_trace.reason = PickReason::Leftmost;
            best = first;
        } else {
            let mut node = self.cfs_rqs[q as usize].tree.root();
            while node != NIL {
                self.pick_trace.visit(node);
                let left = self.nodes[node as usize].left;
                if left != NIL && el.eligible(self.nodes[left as usize].min_val) {
                    node = left;
                    continue;
                }
                if el.eligible(self.ents[node as usize].vruntime) {
                    best = node;
                    break;
                }
                node = self.nodes[node as usize].right;
            }
        }
        if best == NIL || (curr != NIL && self.entity_before(curr, best)) {
            if curr != NIL {
                self.pick_trace.reason = PickReason::Curr;
            }
            best = curr;
        }
        best
    }

    /// Mirrors `pick_eevdf()` of the EEVDF RFC (March 2023) and v6.6-rc1..5,
    /// before b01db23d5923: one descent of the vruntime-sorted tree. An
    /// ineligible node sends it left; an eligible one becomes the best if
    /// its deadline is earlier, and ends the walk if that deadline is its
    /// subtree's minimum; it goes left only when the left subtree holds the
    /// node's subtree minimum, otherwise right — so an earlier deadline
    /// left of an eligible node whose minimum lies right (beyond V) is
    /// missed. The running entity wins only with a strictly earlier
    /// deadline (`deadline_gt(deadline, best, curr)`). No protection
    /// (RUN_TO_PARITY came later).
    fn pick_eevdf_rfc(&mut self, q: u32) -> u32 {
        let el = self.eligibility(q);
        let curr = self.eligible_curr(q, &el);
        let mut best = NIL;
        let mut node = self.cfs_rqs[q as usize].tree.root();
        while node != NIL {
            self.pick_trace.visit(node);
            let n = self.nodes[node as usize];
            if !el.eligible(self.ents[node as usize].vruntime) {
                node = n.left;
                continue;
            }
            let deadline = self.ents[node as usize].deadline;
            if best == NIL || before(deadline, self.ents[best as usize].deadline) {
                best = node;
                if deadline == n.min_val {
                    break;
                }
            }
            node = if n.left != NIL && self.nodes[n.left as usize].min_val == n.min_val { n.left } else { n.right };
        }
        if best == NIL || (curr != NIL && before(self.ents[curr as usize].deadline, self.ents[best as usize].deadline)) {
            if curr != NIL {
                self.pick_trace.reason = PickReason::Curr;
            }
            best = curr;
        }
        best
    }

    /// v6.6: tree sorted by vruntime, augmented with min deadline.
    fn pick_eevdf_by_vruntime(&mut self, q: u32, protect: bool) -> u32 {
        let el = self.eligibility(q);
        let curr = self.eligible_curr(q, &el);
        let mut best = curr;
        if curr != NIL && protect && self.curr_protected(curr) {
            self.pick_trace.reason = PickReason::Protected;
            return curr;
        }
        if curr != NIL {
            self.pick_trace.reason = PickReason::Curr;
        }
        let mut best_left = NIL;
        let mut node = self.cfs_rqs[q as usize].tree.root();
        while node != NIL {
            self.pick_trace.visit(node);
            if !el.eligible(self.ents[node as usize].vruntime) {
                node = self.nodes[node as usize].left;
                continue;
            }
            // Heap search the eligible part for the earliest deadline.
            if best == NIL || before(self.ents[node as usize].deadline, self.ents[best as usize].deadline) {
                best = node;
                self.pick_trace.reason = PickReason::HeapSearch;
            }
            // Everything in a left branch is eligible; remember the branch
            // with the earliest min_deadline.
            let n = self.nodes[node as usize];
            if n.left != NIL {
                let left_min = self.nodes[n.left as usize].min_val;
                if best_left == NIL || before(left_min, self.nodes[best_left as usize].min_val) {
                    best_left = n.left;
                }
                if left_min == n.min_val {
                    break;
                }
            }
            if self.ents[node as usize].deadline == n.min_val {
                break;
            }
            node = n.right;
        }
        if best_left == NIL
            || (best != NIL && before(self.ents[best as usize].deadline, self.nodes[best_left as usize].min_val))
        {
            return best;
        }
        // The earliest deadline is inside best_left's (all eligible) subtree:
        // follow min_deadline down to it.
        self.pick_trace.reason = PickReason::HeapSearch;
        let mut node = best_left;
        while node != NIL {
            self.pick_trace.visit(node);
            let n = self.nodes[node as usize];
            if self.ents[node as usize].deadline == n.min_val {
                return node;
            }
            if n.left != NIL && self.nodes[n.left as usize].min_val == n.min_val {
                node = n.left;
            } else {
                node = n.right;
            }
        }
        NIL
    }
}
