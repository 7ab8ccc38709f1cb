//! Augmented, leftmost-cached red-black tree: the CFS/EEVDF run queue.
//!
//! This models the Linux kernel's `struct rb_root_cached` as used for
//! `cfs_rq->tasks_timeline` in kernel/sched/fair.c, together with the
//! augmentation callbacks fair.c declares with
//! `RB_DECLARE_CALLBACKS(static, min_vruntime_cb, ...)`.
//!
//! The algorithms follow lib/rbtree.c and include/linux/rbtree_augmented.h
//! (v6.18) case by case — insert fixup cases 1–3, erase with successor swap
//! (cases 1–3 of `__rb_erase_augmented()`), the `____rb_erase_color()`
//! fixup cases 1–4, and the augment `propagate` / `copy` / `rotate`
//! callbacks — so that the tree *shape* after any sequence of operations is
//! the same shape the kernel would have built. That matters for a faithful
//! simulation: `pick_eevdf()` walks the tree from the root, and ties between
//! equal keys are resolved by the tree shape.
//!
//! # Layout
//!
//! Nodes live in one arena (`&mut [RbNode]`) indexed by entity id (`u32`),
//! exactly like the kernel's `struct rb_node` embedded in `struct
//! sched_entity`: many trees (one per CPU run queue) share the arena, a node
//! is in at most one tree at a time, and memory is O(entities) in total.
//! [`RbRoot`] is just the kernel's `rb_root_cached` (root + leftmost) plus a
//! length. Links are `u32` ids with [`NIL`] standing for `NULL`; the kernel
//! packs the colour into the low bit of the parent pointer, we keep a `bool`.
//!
//! # Ordering
//!
//! `key` is compared the way fair.c compares u64 times: `a` sorts before `b`
//! iff `(a - b) as i64 < 0` (wrapping). This is a total order on any set of
//! keys that lies within a window narrower than 2^63.
//!
//! # Augmentation
//!
//! Every node caches, for its subtree, `min_val` (wrap-safe minimum of `val`)
//! and `min_slice` (plain minimum of `slice`), recomputed exactly like
//! fair.c's `min_vruntime_update()` (v6.12+). In 6.8+ kernels `key` is the
//! deadline and `val` the vruntime; in 6.6 `key` is the vruntime and `val` the
//! deadline (the field was `min_deadline`). The tree does not care.
//!
//! The hot path (`insert`, `erase`, `first`, `next`, `prev`, iteration) does
//! not allocate and does not recurse.
//!
//! # Deliberate divergence: `min_slice` on rotations
//!
//! fair.c (v6.12–v6.18) declares its callbacks with
//! `RB_DECLARE_CALLBACKS(static, min_vruntime_cb, struct sched_entity,
//! run_node, min_vruntime, min_vruntime_update)`, so the generated `copy` and
//! `rotate` callbacks transfer only `min_vruntime` to the node that moves up;
//! its `min_slice` keeps the value of its smaller, pre-rotation subtree until
//! some later propagate happens to pass through it. The kernel's root
//! `min_slice` (read by `cfs_rq_min_slice()`) can therefore be stale. This
//! module transfers *both* aggregates, so `min_slice` is always the true
//! subtree minimum and [`RbRoot::check`] can verify it. Tree shape, colours,
//! `min_val` and the leftmost cache are unaffected and match the kernel
//! exactly. A tree built with [`RbRoot::set_exact_min_slice`]`(false)`
//! reproduces the kernel's stale `min_slice` instead (copy and rotate then
//! transfer only `min_val`, and [`RbRoot::check`] no longer checks
//! `min_slice`); the scheduler selects this with NO_EXACT_MIN_SLICE.

/// The "null pointer" of the arena.
pub const NIL: u32 = u32::MAX;

/// One tree node; the arena slot of entity `id` (the kernel's `struct
/// rb_node run_node` plus the augmented fields of `struct sched_entity`).
///
/// The caller sets `key`, `val` and `slice` before [`RbRoot::insert`] and
/// must not change them while the node is in a tree (except `val`/`slice`
/// followed by [`RbRoot::update_aug`]). `parent`/`left`/`right`/`red` and the
/// `min_*` fields are owned by the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RbNode {
    /// Parent id, or [`NIL`] for the root and for detached nodes.
    pub parent: u32,
    /// Left child id or [`NIL`].
    pub left: u32,
    /// Right child id or [`NIL`].
    pub right: u32,
    /// Colour: `true` = red, `false` = black.
    pub red: bool,
    /// Sort key (wrap-safe u64 order; ties go right).
    pub key: u64,
    /// Augmented value (vruntime in 6.8+, deadline in 6.6).
    pub val: u64,
    /// Wrap-safe minimum of `val` over this node's subtree.
    pub min_val: u64,
    /// Request size, aggregated as a plain-u64 minimum.
    pub slice: u64,
    /// Minimum of `slice` over this node's subtree.
    pub min_slice: u64,
}

impl RbNode {
    /// A node that is in no tree: all links [`NIL`], black, zero payload.
    #[inline]
    #[must_use]
    pub const fn detached() -> Self {
        RbNode {
            parent: NIL,
            left: NIL,
            right: NIL,
            red: false,
            key: 0,
            val: 0,
            min_val: 0,
            slice: 0,
            min_slice: 0,
        }
    }
}

impl Default for RbNode {
    /// Same as [`RbNode::detached`] (links must be [`NIL`], not 0).
    #[inline]
    fn default() -> Self {
        Self::detached()
    }
}

/// `a` sorts strictly before `b` in wrap-safe u64 order.
///
/// Mirrors `entity_before()` / `__entity_less()` (kernel/sched/fair.c, v6.18):
/// `(s64)(a->deadline - b->deadline) < 0`.
#[inline]
#[must_use]
pub fn key_less(a: u64, b: u64) -> bool {
    (a.wrapping_sub(b) as i64) < 0
}

/// `a` is strictly greater than `b` in wrap-safe u64 order.
///
/// Mirrors the `vruntime_gt()` macro (kernel/sched/fair.c, v6.18).
#[inline]
fn wrap_gt(a: u64, b: u64) -> bool {
    (a.wrapping_sub(b) as i64) > 0
}

// ---------------------------------------------------------------------------
// Augment callbacks (RB_DECLARE_CALLBACKS in include/linux/rbtree_augmented.h
// instantiated by fair.c as `min_vruntime_cb`).
// ---------------------------------------------------------------------------

/// Recompute `min_val`/`min_slice` of `id` from its own values and its
/// children's cached aggregates; returns `true` if nothing changed.
///
/// Mirrors `min_vruntime_update()` + `__min_vruntime_update()` +
/// `__min_slice_update()` (kernel/sched/fair.c, v6.12–v6.18), including the
/// right-then-left order of the child updates (irrelevant for the result on a
/// total order, kept for fidelity).
#[inline]
fn compute(nodes: &mut [RbNode], id: u32) -> bool {
    let n = nodes[id as usize];
    let mut min_val = n.val;
    let mut min_slice = n.slice;
    if n.right != NIL {
        let r = &nodes[n.right as usize];
        if wrap_gt(min_val, r.min_val) {
            min_val = r.min_val;
        }
        if r.min_slice < min_slice {
            min_slice = r.min_slice;
        }
    }
    if n.left != NIL {
        let l = &nodes[n.left as usize];
        if wrap_gt(min_val, l.min_val) {
            min_val = l.min_val;
        }
        if l.min_slice < min_slice {
            min_slice = l.min_slice;
        }
    }
    let node = &mut nodes[id as usize];
    let unchanged = node.min_val == min_val && node.min_slice == min_slice;
    node.min_val = min_val;
    node.min_slice = min_slice;
    unchanged
}

/// Walk from `id` towards the root recomputing aggregates, stopping at
/// `stop` (exclusive) or as soon as a node's aggregate did not change —
/// its ancestors only see that aggregate, so they cannot change either.
///
/// Mirrors `RBNAME_propagate()` of `RB_DECLARE_CALLBACKS`
/// (include/linux/rbtree_augmented.h, v6.18).
#[inline]
fn propagate(nodes: &mut [RbNode], mut id: u32, stop: u32) {
    while id != stop {
        if compute(nodes, id) {
            break;
        }
        id = nodes[id as usize].parent;
    }
}

/// Copy the aggregate of `old` to `new`.
///
/// Mirrors `RBNAME_copy()` of `RB_DECLARE_CALLBACKS`
/// (include/linux/rbtree_augmented.h, v6.18). Used when the erase successor
/// takes the erased node's place: its new subtree is (nearly) the old one, so
/// starting from the old aggregate lets the final propagate stop early.
#[inline]
fn aug_copy(nodes: &mut [RbNode], old: u32, new: u32, exact_min_slice: bool) {
    let o = nodes[old as usize];
    let n = &mut nodes[new as usize];
    n.min_val = o.min_val;
    if exact_min_slice {
        n.min_slice = o.min_slice;
    }
}

/// Fix aggregates after a rotation in which `new` took `old`'s place.
///
/// Mirrors `RBNAME_rotate()` of `RB_DECLARE_CALLBACKS`
/// (include/linux/rbtree_augmented.h, v6.18). Why this is enough: a rotation
/// only changes the subtrees of the two nodes involved. `new` now roots
/// exactly the set of nodes `old` used to root, so it inherits `old`'s
/// aggregate unchanged; `old` sank one level and lost a child subtree, so it
/// is recomputed from its (already correct) new children. Nothing above the
/// rotation sees a different node set, so no propagation is needed.
/// (Unlike fair.c's `min_vruntime_cb`, both aggregates are transferred; see
/// the module docs.)
#[inline]
fn aug_rotate(nodes: &mut [RbNode], old: u32, new: u32, exact_min_slice: bool) {
    aug_copy(nodes, old, new, exact_min_slice);
    compute(nodes, old);
}

/// Iterative in-order successor, shared by [`RbRoot::next`] and erase.
///
/// Mirrors `rb_next()` (lib/rbtree.c, v6.18).
#[inline]
fn next_of(nodes: &[RbNode], id: u32) -> u32 {
    let n = &nodes[id as usize];
    // A right child: go down right once, then left as far as possible.
    if n.right != NIL {
        let mut cur = n.right;
        loop {
            let l = nodes[cur as usize].left;
            if l == NIL {
                return cur;
            }
            cur = l;
        }
    }
    // Otherwise climb while we are a right child; the first ancestor we
    // reach from its left side is the successor.
    let mut node = id;
    let mut parent = n.parent;
    while parent != NIL && node == nodes[parent as usize].right {
        node = parent;
        parent = nodes[parent as usize].parent;
    }
    parent
}

/// Iterative in-order predecessor.
///
/// Mirrors `rb_prev()` (lib/rbtree.c, v6.18).
#[inline]
fn prev_of(nodes: &[RbNode], id: u32) -> u32 {
    let n = &nodes[id as usize];
    if n.left != NIL {
        let mut cur = n.left;
        loop {
            let r = nodes[cur as usize].right;
            if r == NIL {
                return cur;
            }
            cur = r;
        }
    }
    let mut node = id;
    let mut parent = n.parent;
    while parent != NIL && node == nodes[parent as usize].left {
        node = parent;
        parent = nodes[parent as usize].parent;
    }
    parent
}

/// Root of one augmented, leftmost-cached red-black tree over a shared arena
/// (the kernel's `struct rb_root_cached`, plus an element count like
/// `cfs_rq->nr_queued`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RbRoot {
    root: u32,
    leftmost: u32,
    len: u32,
    /// Rotations and erase-copies carry `min_slice` (schedlab's fix; false:
    /// the kernel's `min_vruntime_cb`, see the module docs).
    exact_min_slice: bool,
}

impl Default for RbRoot {
    #[inline]
    fn default() -> Self {
        Self::new()
    }
}

impl RbRoot {
    /// An empty tree (`RB_ROOT_CACHED`).
    #[inline]
    #[must_use]
    pub const fn new() -> Self {
        RbRoot {
            root: NIL,
            leftmost: NIL,
            len: 0,
            exact_min_slice: true,
        }
    }

    /// Chooses between schedlab's exact `min_slice` (true, the default) and
    /// the kernel's callbacks, which leave it stale after rotations (false).
    /// Set it while the tree is empty.
    #[inline]
    pub fn set_exact_min_slice(&mut self, exact: bool) {
        debug_assert!(self.root == NIL, "set_exact_min_slice on a non-empty tree");
        self.exact_min_slice = exact;
    }

    /// Root node id, or [`NIL`] if empty (`tasks_timeline.rb_root.rb_node`,
    /// what `__pick_root_entity()` returns).
    #[inline]
    #[must_use]
    pub fn root(&self) -> u32 {
        self.root
    }

    /// Leftmost (smallest key) node id in O(1), or [`NIL`] if empty.
    ///
    /// Mirrors `rb_first_cached()` (include/linux/rbtree.h, v6.18).
    #[inline]
    #[must_use]
    pub fn first(&self) -> u32 {
        self.leftmost
    }

    /// Rightmost (largest key) node id, or [`NIL`] if empty. O(log n).
    ///
    /// Mirrors `rb_last()` (lib/rbtree.c, v6.18).
    #[inline]
    #[must_use]
    pub fn last(&self, nodes: &[RbNode]) -> u32 {
        let mut n = self.root;
        if n == NIL {
            return NIL;
        }
        loop {
            let r = nodes[n as usize].right;
            if r == NIL {
                return n;
            }
            n = r;
        }
    }

    /// In-order successor of `id` (which must be in this tree), or [`NIL`].
    ///
    /// Mirrors `rb_next()` (lib/rbtree.c, v6.18).
    #[inline]
    #[must_use]
    pub fn next(&self, nodes: &[RbNode], id: u32) -> u32 {
        next_of(nodes, id)
    }

    /// In-order predecessor of `id` (which must be in this tree), or [`NIL`].
    ///
    /// Mirrors `rb_prev()` (lib/rbtree.c, v6.18).
    #[inline]
    #[must_use]
    pub fn prev(&self, nodes: &[RbNode], id: u32) -> u32 {
        prev_of(nodes, id)
    }

    /// Number of nodes in the tree.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// `true` if the tree has no nodes.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.root == NIL
    }

    /// In-order iterator over node ids (smallest key first). Allocation-free.
    #[inline]
    #[must_use]
    pub fn iter<'a>(&self, nodes: &'a [RbNode]) -> Iter<'a> {
        Iter {
            nodes,
            cur: self.leftmost,
            remaining: self.len as usize,
        }
    }

    /// Whether `id` is currently linked into *this* tree. O(log n): walks
    /// parent links up to a root and compares it with ours. Relies on
    /// [`RbRoot::erase`] resetting the links of erased nodes to [`NIL`].
    #[must_use]
    pub fn contains(&self, nodes: &[RbNode], id: u32) -> bool {
        if self.root == NIL || id as usize >= nodes.len() {
            return false;
        }
        let mut cur = id;
        loop {
            let p = nodes[cur as usize].parent;
            if p == NIL {
                return cur == self.root;
            }
            cur = p;
        }
    }

    /// Replace `old` by `new` as a child of `parent`, or as the root.
    ///
    /// Mirrors `__rb_change_child()` (include/linux/rbtree_augmented.h, v6.18).
    #[inline]
    fn change_child(&mut self, nodes: &mut [RbNode], old: u32, new: u32, parent: u32) {
        if parent != NIL {
            let p = &mut nodes[parent as usize];
            if p.left == old {
                p.left = new;
            } else {
                p.right = new;
            }
        } else {
            self.root = new;
        }
    }

    /// Rotation helper: `new` takes `old`'s parent and colour (and its slot
    /// in that parent); `old` gets `new` as parent and colour `red`.
    ///
    /// Mirrors `__rb_rotate_set_parents()` (lib/rbtree.c, v6.18).
    #[inline]
    fn rotate_set_parents(&mut self, nodes: &mut [RbNode], old: u32, new: u32, red: bool) {
        let o = nodes[old as usize];
        {
            let n = &mut nodes[new as usize];
            n.parent = o.parent;
            n.red = o.red;
        }
        {
            let o = &mut nodes[old as usize];
            o.parent = new;
            o.red = red;
        }
        self.change_child(nodes, old, new, o.parent);
    }

    /// Insert detached node `id` (with `key`/`val`/`slice` already set).
    /// Returns `true` if it became the leftmost node.
    ///
    /// Mirrors `rb_add_augmented_cached()` (include/linux/rbtree_augmented.h,
    /// v6.18) with fair.c's `__entity_less` and `min_vruntime_cb`, preceded by
    /// `__enqueue_entity()`'s initialisation of `min_vruntime`/`min_slice`.
    ///
    /// Ties go right: the descent compares with a *strict* `less()`, so a key
    /// equal to an existing one is sent to the right subtree. Among equal
    /// keys, in-order is therefore insertion order, and an equal-key insert
    /// never becomes leftmost — the queued entity that was there first keeps
    /// precedence, as in the kernel.
    pub fn insert(&mut self, nodes: &mut [RbNode], id: u32) -> bool {
        debug_assert!(id != NIL && (id as usize) < nodes.len(), "insert: bad id {id}");
        debug_assert!(
            {
                let n = &nodes[id as usize];
                n.parent == NIL && n.left == NIL && n.right == NIL && self.root != id
            },
            "insert: node {id} is not detached"
        );

        let key = nodes[id as usize].key;
        let mut parent = NIL;
        let mut go_left = false;
        let mut leftmost = true;
        let mut cur = self.root;
        while cur != NIL {
            parent = cur;
            let c = &nodes[cur as usize];
            if key_less(key, c.key) {
                go_left = true;
                cur = c.left;
            } else {
                go_left = false;
                cur = c.right;
                leftmost = false;
            }
        }

        // rb_link_node(): new red leaf under `parent`. Its own aggregate is
        // just its own values (fair.c sets this in __enqueue_entity()).
        {
            let n = &mut nodes[id as usize];
            n.parent = parent;
            n.left = NIL;
            n.right = NIL;
            n.red = true;
            n.min_val = n.val;
            n.min_slice = n.slice;
        }
        if parent == NIL {
            self.root = id;
        } else if go_left {
            nodes[parent as usize].left = id;
        } else {
            nodes[parent as usize].right = id;
        }

        // The kernel marks this "suboptimal": it propagates the new leaf's
        // values up the whole insertion path before rebalancing, so that all
        // aggregates are correct when the fixup's rotations run (each rotate
        // callback assumes correct children).
        propagate(nodes, parent, NIL);

        // rb_insert_augmented_cached()
        if leftmost {
            self.leftmost = id;
        }
        self.len += 1;
        self.insert_fixup(nodes, id);
        leftmost
    }

    /// Restore the red-black properties after linking red leaf `node`.
    ///
    /// Mirrors `__rb_insert()` (lib/rbtree.c, v6.18), with `augment_rotate`
    /// = [`aug_rotate`]. Loop invariant: `node` is red.
    fn insert_fixup(&mut self, nodes: &mut [RbNode], mut node: u32) {
        let mut parent = nodes[node as usize].parent;
        loop {
            if parent == NIL {
                // `node` is the root: either the first node, or case 1
                // recursed all the way up. Paint it black.
                nodes[node as usize].red = false;
                break;
            }
            // Black parent: no red-red violation, done.
            if !nodes[parent as usize].red {
                break;
            }
            // Parent is red, hence not the root, so the grandparent exists.
            let gparent = nodes[parent as usize].parent;
            let mut tmp = nodes[gparent as usize].right;
            if parent != tmp {
                // parent == gparent.left
                if tmp != NIL && nodes[tmp as usize].red {
                    // Case 1: red uncle — colour flips, then recurse at g.
                    //
                    //       G            g
                    //      / \          / \
                    //     p   u  -->   P   U
                    //    /            /
                    //   n            n
                    nodes[tmp as usize].red = false;
                    nodes[parent as usize].red = false;
                    node = gparent;
                    parent = nodes[node as usize].parent;
                    nodes[node as usize].red = true;
                    continue;
                }
                tmp = nodes[parent as usize].right;
                if node == tmp {
                    // Case 2: black uncle, node is the right child — left
                    // rotate at parent, turning it into case 3.
                    //
                    //      G             G
                    //     / \           / \
                    //    p   U  -->    n   U
                    //     \           /
                    //      n         p
                    tmp = nodes[node as usize].left;
                    nodes[parent as usize].right = tmp;
                    nodes[node as usize].left = parent;
                    if tmp != NIL {
                        let t = &mut nodes[tmp as usize];
                        t.parent = parent;
                        t.red = false;
                    }
                    {
                        let p = &mut nodes[parent as usize];
                        p.parent = node;
                        p.red = true;
                    }
                    aug_rotate(nodes, parent, node, self.exact_min_slice);
                    parent = node;
                    tmp = nodes[node as usize].right;
                }
                // Case 3: black uncle, node is the left child — right rotate
                // at gparent.
                //
                //        G           P
                //       / \         / \
                //      p   U  -->  n   g
                //     /                 \
                //    n                   U
                nodes[gparent as usize].left = tmp; // == parent.right
                nodes[parent as usize].right = gparent;
                if tmp != NIL {
                    let t = &mut nodes[tmp as usize];
                    t.parent = gparent;
                    t.red = false;
                }
                self.rotate_set_parents(nodes, gparent, parent, true);
                aug_rotate(nodes, gparent, parent, self.exact_min_slice);
                break;
            } else {
                // parent == gparent.right: mirror image of the above.
                tmp = nodes[gparent as usize].left;
                if tmp != NIL && nodes[tmp as usize].red {
                    // Case 1: colour flips.
                    nodes[tmp as usize].red = false;
                    nodes[parent as usize].red = false;
                    node = gparent;
                    parent = nodes[node as usize].parent;
                    nodes[node as usize].red = true;
                    continue;
                }
                tmp = nodes[parent as usize].left;
                if node == tmp {
                    // Case 2: right rotate at parent.
                    tmp = nodes[node as usize].right;
                    nodes[parent as usize].left = tmp;
                    nodes[node as usize].right = parent;
                    if tmp != NIL {
                        let t = &mut nodes[tmp as usize];
                        t.parent = parent;
                        t.red = false;
                    }
                    {
                        let p = &mut nodes[parent as usize];
                        p.parent = node;
                        p.red = true;
                    }
                    aug_rotate(nodes, parent, node, self.exact_min_slice);
                    parent = node;
                    tmp = nodes[node as usize].left;
                }
                // Case 3: left rotate at gparent.
                nodes[gparent as usize].right = tmp; // == parent.left
                nodes[parent as usize].left = gparent;
                if tmp != NIL {
                    let t = &mut nodes[tmp as usize];
                    t.parent = gparent;
                    t.red = false;
                }
                self.rotate_set_parents(nodes, gparent, parent, true);
                aug_rotate(nodes, gparent, parent, self.exact_min_slice);
                break;
            }
        }
    }

    /// Remove `id` (which must be in this tree) and reset its links to
    /// [`NIL`] (so it is detached and may be inserted into any tree).
    ///
    /// Mirrors `rb_erase_augmented_cached()` (include/linux/rbtree_augmented.h,
    /// v6.18): update the leftmost cache with `rb_next()`, unlink with
    /// `__rb_erase_augmented()`, then rebalance with `__rb_erase_color()`.
    /// The kernel leaves the erased node's links stale; we clear them
    /// (`RB_CLEAR_NODE`-like) so [`RbRoot::contains`] stays exact.
    pub fn erase(&mut self, nodes: &mut [RbNode], id: u32) {
        debug_assert!(self.len > 0, "erase from empty tree");
        debug_assert!(self.contains(nodes, id), "erase: node {id} not in this tree");

        if self.leftmost == id {
            self.leftmost = next_of(nodes, id);
        }
        let rebalance = self.erase_augmented(nodes, id);
        if rebalance != NIL {
            self.erase_color(nodes, rebalance);
        }
        self.len -= 1;

        let n = &mut nodes[id as usize];
        n.parent = NIL;
        n.left = NIL;
        n.right = NIL;
        n.red = false;
    }

    /// Unlink `node`, fix aggregates, and return the node from which colour
    /// rebalancing must start ([`NIL`] if none is needed).
    ///
    /// Mirrors `__rb_erase_augmented()` (include/linux/rbtree_augmented.h,
    /// v6.18).
    fn erase_augmented(&mut self, nodes: &mut [RbNode], node: u32) -> u32 {
        let n = nodes[node as usize];
        let child = n.right;
        let mut tmp = n.left;
        let rebalance;
        // "pc": the erased node's parent and colour, which whoever replaces
        // it inherits.
        let (pc_parent, pc_red) = (n.parent, n.red);

        if tmp == NIL {
            // Case 1: at most one child (the right one). If it exists it must
            // be red (property 5) and `node` black (property 4): the child
            // takes node's place and colour, so no rebalancing is needed.
            // A removed black leaf leaves a black-height deficit at parent.
            let parent = pc_parent;
            self.change_child(nodes, node, child, parent);
            if child != NIL {
                let c = &mut nodes[child as usize];
                c.parent = pc_parent;
                c.red = pc_red;
                rebalance = NIL;
            } else {
                rebalance = if pc_red { NIL } else { parent };
            }
            tmp = parent;
        } else if child == NIL {
            // Still case 1, but the only child is the left one.
            {
                let t = &mut nodes[tmp as usize];
                t.parent = pc_parent;
                t.red = pc_red;
            }
            let parent = pc_parent;
            self.change_child(nodes, node, tmp, parent);
            rebalance = NIL;
            tmp = parent;
        } else {
            // Two children: the in-order successor (leftmost of the right
            // subtree, which has no left child) takes node's place.
            let mut successor = child;
            let mut parent;
            let child2;
            tmp = nodes[child as usize].left;
            if tmp == NIL {
                // Case 2: the successor is node's right child.
                //
                //    (n)          (s)
                //    / \          / \
                //  (x) (s)  ->  (x) (c)
                //        \
                //        (c)
                parent = successor;
                child2 = nodes[successor as usize].right;
                aug_copy(nodes, node, successor, self.exact_min_slice);
            } else {
                // Case 3: the successor is the leftmost node under node's
                // right child.
                //
                //    (n)          (s)
                //    / \          / \
                //  (x) (y)  ->  (x) (y)
                //      /            /
                //    (p)          (p)
                //    /            /
                //  (s)          (c)
                //    \
                //    (c)
                loop {
                    parent = successor;
                    successor = tmp;
                    tmp = nodes[tmp as usize].left;
                    if tmp == NIL {
                        break;
                    }
                }
                child2 = nodes[successor as usize].right;
                nodes[parent as usize].left = child2;
                nodes[successor as usize].right = child;
                nodes[child as usize].parent = successor;
                aug_copy(nodes, node, successor, self.exact_min_slice);
                // Fix aggregates on the path the successor was removed from,
                // from its old parent up to (not including) the successor,
                // which now sits above `child`.
                propagate(nodes, parent, successor);
            }

            tmp = n.left;
            nodes[successor as usize].left = tmp;
            nodes[tmp as usize].parent = successor;

            self.change_child(nodes, node, successor, pc_parent);

            if child2 != NIL {
                // The successor had one (red) child: it takes the
                // successor's old slot and turns black; no deficit.
                let c = &mut nodes[child2 as usize];
                c.parent = parent;
                c.red = false;
                rebalance = NIL;
            } else {
                // Removing a black successor from its old slot leaves a
                // deficit there (tested before it inherits node's colour).
                rebalance = if nodes[successor as usize].red { NIL } else { parent };
            }
            let s = &mut nodes[successor as usize];
            s.parent = pc_parent;
            s.red = pc_red;
            tmp = successor;
        }

        propagate(nodes, tmp, NIL);
        rebalance
    }

    /// Restore the red-black properties after an erase left the paths
    /// through `parent`'s (possibly empty) child `node` one black short.
    ///
    /// Mirrors `____rb_erase_color()` (lib/rbtree.c, v6.18), with
    /// `augment_rotate` = [`aug_rotate`]. Loop invariants: `node` is black
    /// (or NIL on the first iteration) and not the root; all paths through
    /// `parent` and `node` have one black node fewer than other paths.
    fn erase_color(&mut self, nodes: &mut [RbNode], mut parent: u32) {
        let mut node = NIL;
        loop {
            let mut sibling = nodes[parent as usize].right;
            if node != sibling {
                // node == parent.left. The sibling exists: its side has a
                // black height at least one greater than node's.
                if nodes[sibling as usize].red {
                    // Case 1: red sibling — left rotate at parent.
                    //
                    //     P               S
                    //    / \             / \
                    //   N   s    -->    p   Sr
                    //      / \         / \
                    //     Sl  Sr      N   Sl
                    let tmp1 = nodes[sibling as usize].left;
                    nodes[parent as usize].right = tmp1;
                    nodes[sibling as usize].left = parent;
                    {
                        let t = &mut nodes[tmp1 as usize];
                        t.parent = parent;
                        t.red = false;
                    }
                    self.rotate_set_parents(nodes, parent, sibling, true);
                    aug_rotate(nodes, parent, sibling, self.exact_min_slice);
                    sibling = tmp1;
                }
                let mut tmp1 = nodes[sibling as usize].right;
                if tmp1 == NIL || !nodes[tmp1 as usize].red {
                    let tmp2 = nodes[sibling as usize].left;
                    if tmp2 == NIL || !nodes[tmp2 as usize].red {
                        // Case 2: black sibling with black children — paint
                        // the sibling red. If parent was red, painting it
                        // black fixes the deficit; otherwise the deficit
                        // moves up to parent.
                        //
                        //    (p)           (p)
                        //    / \           / \
                        //   N   S    -->  N   s
                        //      / \           / \
                        //     Sl  Sr        Sl  Sr
                        nodes[sibling as usize].red = true;
                        if nodes[parent as usize].red {
                            nodes[parent as usize].red = false;
                        } else {
                            node = parent;
                            parent = nodes[node as usize].parent;
                            if parent != NIL {
                                continue;
                            }
                        }
                        break;
                    }
                    // Case 3: sibling's left child is red, right is black —
                    // right rotate at sibling, turning it into case 4.
                    //
                    //   (p)           (p)
                    //   / \           / \
                    //  N   S    -->  N   sl
                    //     / \             \
                    //    sl  Sr            S
                    //                       \
                    //                        Sr
                    //
                    // As in the kernel, the parent links of S and sl are left
                    // stale here; case 4 rewrites both.
                    tmp1 = nodes[tmp2 as usize].right;
                    nodes[sibling as usize].left = tmp1;
                    nodes[tmp2 as usize].right = sibling;
                    nodes[parent as usize].right = tmp2;
                    if tmp1 != NIL {
                        let t = &mut nodes[tmp1 as usize];
                        t.parent = sibling;
                        t.red = false;
                    }
                    aug_rotate(nodes, sibling, tmp2, self.exact_min_slice);
                    tmp1 = sibling;
                    sibling = tmp2;
                }
                // Case 4: sibling's right child is red — left rotate at
                // parent; the sibling takes parent's colour, parent and the
                // sibling's right child turn black.
                //
                //      (p)             (s)
                //      / \             / \
                //     N   S     -->   P   Sr
                //        / \         / \
                //      (sl) sr      N  (sl)
                let tmp2 = nodes[sibling as usize].left;
                nodes[parent as usize].right = tmp2;
                nodes[sibling as usize].left = parent;
                {
                    let t = &mut nodes[tmp1 as usize];
                    t.parent = sibling;
                    t.red = false;
                }
                if tmp2 != NIL {
                    nodes[tmp2 as usize].parent = parent;
                }
                self.rotate_set_parents(nodes, parent, sibling, false);
                aug_rotate(nodes, parent, sibling, self.exact_min_slice);
                break;
            } else {
                // node == parent.right: mirror image of the above.
                sibling = nodes[parent as usize].left;
                if nodes[sibling as usize].red {
                    // Case 1: right rotate at parent.
                    let tmp1 = nodes[sibling as usize].right;
                    nodes[parent as usize].left = tmp1;
                    nodes[sibling as usize].right = parent;
                    {
                        let t = &mut nodes[tmp1 as usize];
                        t.parent = parent;
                        t.red = false;
                    }
                    self.rotate_set_parents(nodes, parent, sibling, true);
                    aug_rotate(nodes, parent, sibling, self.exact_min_slice);
                    sibling = tmp1;
                }
                let mut tmp1 = nodes[sibling as usize].left;
                if tmp1 == NIL || !nodes[tmp1 as usize].red {
                    let tmp2 = nodes[sibling as usize].right;
                    if tmp2 == NIL || !nodes[tmp2 as usize].red {
                        // Case 2: sibling colour flip.
                        nodes[sibling as usize].red = true;
                        if nodes[parent as usize].red {
                            nodes[parent as usize].red = false;
                        } else {
                            node = parent;
                            parent = nodes[node as usize].parent;
                            if parent != NIL {
                                continue;
                            }
                        }
                        break;
                    }
                    // Case 3: left rotate at sibling.
                    tmp1 = nodes[tmp2 as usize].left;
                    nodes[sibling as usize].right = tmp1;
                    nodes[tmp2 as usize].left = sibling;
                    nodes[parent as usize].left = tmp2;
                    if tmp1 != NIL {
                        let t = &mut nodes[tmp1 as usize];
                        t.parent = sibling;
                        t.red = false;
                    }
                    aug_rotate(nodes, sibling, tmp2, self.exact_min_slice);
                    tmp1 = sibling;
                    sibling = tmp2;
                }
                // Case 4: right rotate at parent + colour flips.
                let tmp2 = nodes[sibling as usize].right;
                nodes[parent as usize].left = tmp2;
                nodes[sibling as usize].right = parent;
                {
                    let t = &mut nodes[tmp1 as usize];
                    t.parent = sibling;
                    t.red = false;
                }
                if tmp2 != NIL {
                    nodes[tmp2 as usize].parent = parent;
                }
                self.rotate_set_parents(nodes, parent, sibling, false);
                aug_rotate(nodes, parent, sibling, self.exact_min_slice);
                break;
            }
        }
    }

    /// Re-establish `min_val`/`min_slice` after the caller changed `val`
    /// and/or `slice` of in-tree node `id` (the key must not change).
    ///
    /// Mirrors `min_vruntime_cb_propagate(&se->run_node, NULL)` — the
    /// `RBNAME_propagate()` of `RB_DECLARE_CALLBACKS`
    /// (include/linux/rbtree_augmented.h, v6.18) — as fair.c does in
    /// `reweight_entity()`-style in-place updates.
    #[inline]
    pub fn update_aug(&mut self, nodes: &mut [RbNode], id: u32) {
        debug_assert!(self.contains(nodes, id), "update_aug: node {id} not in this tree");
        propagate(nodes, id, NIL);
    }

    /// Verify every invariant of the tree; returns the black height (number
    /// of black nodes on any root-to-leaf path, NIL leaves not counted).
    ///
    /// Checks: root black with NIL parent; parent links consistent; no red
    /// node with a red child; equal black height on every path; in-order keys
    /// non-decreasing (wrap-safe); `min_val` of every node (and `min_slice`,
    /// unless the tree keeps the kernel's stale one) equal to the true
    /// subtree minimum; leftmost cache; `len`. O(n), recursive
    /// (depth bounded by the tree height; deeper means corruption and is
    /// reported). Intended for tests and debug invariant checks.
    ///
    /// # Errors
    ///
    /// Returns a description of the first violated invariant.
    pub fn check(&self, nodes: &[RbNode]) -> Result<usize, String> {
        if self.root == NIL {
            if self.leftmost != NIL {
                return Err(format!("empty tree but leftmost = {}", self.leftmost));
            }
            if self.len != 0 {
                return Err(format!("empty tree but len = {}", self.len));
            }
            return Ok(0);
        }
        if self.root as usize >= nodes.len() {
            return Err(format!("root {} out of arena bounds", self.root));
        }
        let r = &nodes[self.root as usize];
        if r.parent != NIL {
            return Err(format!("root {} has parent {}", self.root, r.parent));
        }
        if r.red {
            return Err(format!("root {} is red", self.root));
        }

        let mut st = CheckState {
            count: 0,
            prev_key: None,
            first: NIL,
            check_min_slice: self.exact_min_slice,
        };
        let sub = check_rec(nodes, self.root, 0, &mut st)?;

        if st.first != self.leftmost {
            return Err(format!(
                "leftmost cache {} but true leftmost is {}",
                self.leftmost, st.first
            ));
        }
        if st.count != self.len as usize {
            return Err(format!("len {} but counted {} nodes", self.len, st.count));
        }
        Ok(sub.black_height)
    }
}

/// Aggregates returned by one level of [`check_rec`].
struct SubInfo {
    black_height: usize,
    min_val: u64,
    min_slice: u64,
}

struct CheckState {
    count: usize,
    prev_key: Option<u64>,
    /// False for a tree with the kernel's stale `min_slice`.
    check_min_slice: bool,
    first: u32,
}

/// Red-black trees have height ≤ 2·log2(n+1) ≤ 64 for u32 ids; anything
/// deeper than this is a cycle or other corruption.
const CHECK_MAX_DEPTH: usize = 130;

fn check_rec(nodes: &[RbNode], id: u32, depth: usize, st: &mut CheckState) -> Result<SubInfo, String> {
    if depth > CHECK_MAX_DEPTH {
        return Err(format!("depth exceeds {CHECK_MAX_DEPTH} at node {id}: cycle?"));
    }
    if id as usize >= nodes.len() {
        return Err(format!("node id {id} out of arena bounds"));
    }
    let n = &nodes[id as usize];
    for (side, c) in [("left", n.left), ("right", n.right)] {
        if c == NIL {
            continue;
        }
        if c as usize >= nodes.len() {
            return Err(format!("{side} child {c} of {id} out of arena bounds"));
        }
        let cn = &nodes[c as usize];
        if cn.parent != id {
            return Err(format!("{side} child {c} of {id} has parent {}", cn.parent));
        }
        if n.red && cn.red {
            return Err(format!("red node {id} has red {side} child {c}"));
        }
    }

    let (lbh, lmin) = if n.left != NIL {
        let l = check_rec(nodes, n.left, depth + 1, st)?;
        (l.black_height, Some((l.min_val, l.min_slice)))
    } else {
        (0, None)
    };

    // In-order visit of `id`.
    if st.count == 0 {
        st.first = id;
    }
    st.count += 1;
    if st.count > nodes.len() {
        return Err("more nodes than the arena holds: cycle?".to_string());
    }
    if let Some(pk) = st.prev_key {
        if key_less(n.key, pk) {
            return Err(format!("in-order key of {id} ({}) < previous key ({pk})", n.key));
        }
    }
    st.prev_key = Some(n.key);

    let (rbh, rmin) = if n.right != NIL {
        let r = check_rec(nodes, n.right, depth + 1, st)?;
        (r.black_height, Some((r.min_val, r.min_slice)))
    } else {
        (0, None)
    };

    if lbh != rbh {
        return Err(format!("black height mismatch at {id}: left {lbh}, right {rbh}"));
    }

    let mut min_val = n.val;
    let mut min_slice = n.slice;
    for (v, s) in [lmin, rmin].into_iter().flatten() {
        if wrap_gt(min_val, v) {
            min_val = v;
        }
        min_slice = min_slice.min(s);
    }
    if n.min_val != min_val {
        return Err(format!("node {id}: min_val {} but subtree min is {min_val}", n.min_val));
    }
    if st.check_min_slice && n.min_slice != min_slice {
        return Err(format!(
            "node {id}: min_slice {} but subtree min is {min_slice}",
            n.min_slice
        ));
    }

    Ok(SubInfo {
        black_height: lbh + usize::from(!n.red),
        min_val,
        min_slice,
    })
}

/// In-order iterator over the ids of one tree; see [`RbRoot::iter`].
#[derive(Clone, Debug)]
pub struct Iter<'a> {
    nodes: &'a [RbNode],
    cur: u32,
    remaining: usize,
}

impl Iterator for Iter<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.cur == NIL {
            return None;
        }
        let id = self.cur;
        self.cur = next_of(self.nodes, id);
        self.remaining = self.remaining.saturating_sub(1);
        Some(id)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl std::iter::FusedIterator for Iter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    /// splitmix64: tiny deterministic PRNG for the tests.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    fn node(key: u64, val: u64, slice: u64) -> RbNode {
        RbNode {
            key,
            val,
            slice,
            ..RbNode::detached()
        }
    }

    fn height(nodes: &[RbNode], id: u32) -> usize {
        if id == NIL {
            0
        } else {
            let n = &nodes[id as usize];
            1 + height(nodes, n.left).max(height(nodes, n.right))
        }
    }

    fn collect(t: &RbRoot, nodes: &[RbNode]) -> Vec<u32> {
        t.iter(nodes).collect()
    }

    fn collect_rev(t: &RbRoot, nodes: &[RbNode]) -> Vec<u32> {
        let mut v = Vec::new();
        let mut c = t.last(nodes);
        while c != NIL {
            v.push(c);
            c = t.prev(nodes, c);
        }
        v.reverse();
        v
    }

    /// Reference model of one tree: ids in expected in-order order.
    /// A new id goes after every id whose key is <= its key (ties right).
    fn ref_insert(r: &mut Vec<u32>, nodes: &[RbNode], id: u32) -> usize {
        let k = nodes[id as usize].key;
        let pos = r
            .iter()
            .position(|&o| key_less(k, nodes[o as usize].key))
            .unwrap_or(r.len());
        r.insert(pos, id);
        pos
    }

    fn brute_min(r: &[u32], nodes: &[RbNode]) -> Option<(u64, u64)> {
        let mut it = r.iter().map(|&i| &nodes[i as usize]);
        let f = it.next()?;
        let (mut mv, mut ms) = (f.val, f.slice);
        for n in it {
            if wrap_gt(mv, n.val) {
                mv = n.val;
            }
            ms = ms.min(n.slice);
        }
        Some((mv, ms))
    }

    fn verify(t: &RbRoot, r: &[u32], nodes: &[RbNode], ctx: &str) {
        if let Err(e) = t.check(nodes) {
            panic!("{ctx}: check failed: {e}");
        }
        assert_eq!(t.len(), r.len(), "{ctx}: len");
        assert_eq!(t.is_empty(), r.is_empty(), "{ctx}: is_empty");
        let got = collect(t, nodes);
        assert_eq!(got, r, "{ctx}: in-order");
        assert_eq!(t.iter(nodes).len(), r.len(), "{ctx}: iter len");
        assert_eq!(collect_rev(t, nodes), r, "{ctx}: reverse order");
        assert_eq!(t.first(), r.first().copied().unwrap_or(NIL), "{ctx}: first");
        assert_eq!(t.last(nodes), r.last().copied().unwrap_or(NIL), "{ctx}: last");
        match brute_min(r, nodes) {
            None => assert_eq!(t.root(), NIL),
            Some((mv, ms)) => {
                let root = &nodes[t.root() as usize];
                assert_eq!(root.min_val, mv, "{ctx}: root min_val");
                assert_eq!(root.min_slice, ms, "{ctx}: root min_slice");
            }
        }
    }

    /// Key/val generators. Every value produced by one generator lies in a
    /// window narrower than 2^62, so wrap-safe comparison is a total order.
    #[derive(Clone, Copy)]
    enum Mode {
        /// Very few distinct keys: lots of ties. Around the u64 wrap point.
        HeavyDup,
        /// Keys straddling u64::MAX -> 0 with a small spread.
        NearWrap,
        /// Wide spread (2^61) centred on the wrap point.
        Wide,
    }

    fn gen_time(rng: &mut Rng, mode: Mode) -> u64 {
        match mode {
            Mode::HeavyDup => (u64::MAX - 3).wrapping_add(rng.below(8)),
            Mode::NearWrap => (u64::MAX - 2000).wrapping_add(rng.below(4000)),
            Mode::Wide => {
                if rng.below(4) == 0 {
                    // also some exact duplicates in wide mode
                    (u64::MAX - 5).wrapping_add(rng.below(10))
                } else {
                    (u64::MAX - (1 << 60)).wrapping_add(rng.below(1 << 61))
                }
            }
        }
    }

    fn gen_slice(rng: &mut Rng) -> u64 {
        match rng.below(4) {
            0 => 3_000_000,
            1 => rng.below(10),
            2 => u64::MAX - rng.below(10),
            _ => rng.next(),
        }
    }

    fn random_run(seed: u64, mode: Mode, n_ids: usize, n_trees: usize, ops: usize) {
        let mut rng = Rng(seed);
        let mut nodes = vec![RbNode::detached(); n_ids];
        let mut trees: Vec<RbRoot> = (0..n_trees).map(|_| RbRoot::new()).collect();
        let mut refs: Vec<Vec<u32>> = vec![Vec::new(); n_trees];
        let mut loc: Vec<Option<usize>> = vec![None; n_ids];

        for op in 0..ops {
            // Alternate growth and shrink phases so sizes sweep 0..n_ids.
            let grow = (op / 1500) % 2 == 0;
            let id = rng.below(n_ids as u64) as u32;
            let ctx = format!("seed {seed:#x} op {op} id {id}");
            let touched: Vec<usize>;
            match loc[id as usize] {
                None => {
                    if !grow && rng.below(3) != 0 {
                        continue;
                    }
                    let t = rng.below(n_trees as u64) as usize;
                    let (k, v, s) = (gen_time(&mut rng, mode), gen_time(&mut rng, mode), gen_slice(&mut rng));
                    let nd = &mut nodes[id as usize];
                    nd.key = k;
                    nd.val = v;
                    nd.slice = s;
                    let pos = ref_insert(&mut refs[t], &nodes, id);
                    let became_left = trees[t].insert(&mut nodes, id);
                    assert_eq!(became_left, pos == 0, "{ctx}: insert leftmost flag");
                    loc[id as usize] = Some(t);
                    touched = vec![t];
                }
                Some(t) => {
                    let r = rng.below(10);
                    if r < 2 {
                        // In-place val/slice change + update_aug.
                        let nd = &mut nodes[id as usize];
                        nd.val = gen_time(&mut rng, mode);
                        nd.slice = gen_slice(&mut rng);
                        trees[t].update_aug(&mut nodes, id);
                        touched = vec![t];
                    } else if r < 5 || (grow && r < 7) {
                        // Move to another tree (migration), new key.
                        trees[t].erase(&mut nodes, id);
                        refs[t].retain(|&x| x != id);
                        assert!(!trees[t].contains(&nodes, id), "{ctx}: still contained");
                        let t2 = rng.below(n_trees as u64) as usize;
                        nodes[id as usize].key = gen_time(&mut rng, mode);
                        let pos = ref_insert(&mut refs[t2], &nodes, id);
                        let became_left = trees[t2].insert(&mut nodes, id);
                        assert_eq!(became_left, pos == 0, "{ctx}: reinsert leftmost flag");
                        loc[id as usize] = Some(t2);
                        touched = vec![t, t2];
                    } else {
                        trees[t].erase(&mut nodes, id);
                        refs[t].retain(|&x| x != id);
                        assert_eq!(nodes[id as usize].parent, NIL);
                        assert_eq!(nodes[id as usize].left, NIL);
                        assert_eq!(nodes[id as usize].right, NIL);
                        loc[id as usize] = None;
                        touched = vec![t];
                    }
                }
            }
            for &t in &touched {
                verify(&trees[t], &refs[t], &nodes, &ctx);
            }
            // contains() agrees with the model for the moved id and a
            // random other id, on every tree.
            let other = rng.below(n_ids as u64) as u32;
            for probe in [id, other] {
                for (ti, tree) in trees.iter().enumerate() {
                    assert_eq!(
                        tree.contains(&nodes, probe),
                        loc[probe as usize] == Some(ti),
                        "{ctx}: contains({probe}) on tree {ti}"
                    );
                }
            }
            if op % 256 == 0 {
                for t in 0..n_trees {
                    verify(&trees[t], &refs[t], &nodes, &ctx);
                }
            }
        }
        // Drain everything through first(), like a scheduler picking.
        for t in 0..n_trees {
            while !trees[t].is_empty() {
                let f = trees[t].first();
                assert_eq!(f, refs[t][0]);
                trees[t].erase(&mut nodes, f);
                refs[t].remove(0);
                verify(&trees[t], &refs[t], &nodes, "drain");
            }
        }
    }

    #[test]
    fn random_heavy_duplicates() {
        for seed in [1u64, 2, 3, 0xDEAD_BEEF] {
            random_run(seed, Mode::HeavyDup, 300, 3, 8000);
        }
    }

    #[test]
    fn random_near_wrap() {
        for seed in [11u64, 12, 13, 0xC0FFEE] {
            random_run(seed, Mode::NearWrap, 500, 3, 8000);
        }
    }

    #[test]
    fn random_wide() {
        for seed in [21u64, 22, 0x5EED] {
            random_run(seed, Mode::Wide, 500, 2, 8000);
        }
    }

    #[test]
    fn random_small_trees() {
        // Tiny arenas exercise the degenerate cases (root erase, 1–3 nodes)
        // very often.
        for seed in 100u64..120 {
            random_run(seed, Mode::HeavyDup, 6, 2, 2000);
        }
    }

    #[test]
    fn ties_go_right() {
        let mut nodes = vec![node(10, 0, 0), node(10, 0, 0), node(10, 0, 0), node(9, 0, 0)];
        let mut t = RbRoot::default();
        assert!(t.insert(&mut nodes, 0));
        assert!(!t.insert(&mut nodes, 1), "equal key must not become leftmost");
        assert!(!t.insert(&mut nodes, 2), "equal key must not become leftmost");
        assert_eq!(t.first(), 0);
        assert_eq!(collect(&t, &nodes), vec![0, 1, 2]);
        assert!(t.insert(&mut nodes, 3), "strictly smaller key becomes leftmost");
        assert_eq!(collect(&t, &nodes), vec![3, 0, 1, 2]);
        t.check(&nodes).unwrap();
    }

    #[test]
    fn wrap_safe_order() {
        // 1 is "after" u64::MAX - 1 in wrap-safe order.
        let mut nodes = vec![node(1, 5, 1), node(u64::MAX - 1, u64::MAX - 2, 2)];
        let mut t = RbRoot::new();
        assert!(t.insert(&mut nodes, 0));
        assert!(t.insert(&mut nodes, 1));
        assert_eq!(collect(&t, &nodes), vec![1, 0]);
        let root = &nodes[t.root() as usize];
        assert_eq!(root.min_val, u64::MAX - 2, "wrap-safe min of val");
        assert_eq!(root.min_slice, 1, "plain min of slice");
        t.check(&nodes).unwrap();
    }

    #[test]
    fn leftmost_updates_on_erase() {
        let mut nodes: Vec<RbNode> = (0..8).map(|i| node(i * 10, i, i)).collect();
        let mut t = RbRoot::new();
        for id in [4u32, 2, 6, 1, 3, 5, 7, 0] {
            t.insert(&mut nodes, id);
        }
        for expect in 0..8u32 {
            assert_eq!(t.first(), expect);
            assert_eq!(nodes[t.root() as usize].min_val, u64::from(expect));
            t.erase(&mut nodes, expect);
            t.check(&nodes).unwrap();
        }
        assert!(t.is_empty());
        assert_eq!(t.first(), NIL);
        assert_eq!(t.root(), NIL);
    }

    #[test]
    fn erase_root_with_two_children() {
        let mut nodes: Vec<RbNode> = (0..7).map(|i| node(i, 100 - i, 50 + i)).collect();
        let mut t = RbRoot::new();
        for id in 0..7 {
            t.insert(&mut nodes, id);
        }
        t.check(&nodes).unwrap();
        let mut expect: Vec<u32> = (0..7).collect();
        while t.len() > 2 {
            let r = t.root();
            let rn = nodes[r as usize];
            if rn.left == NIL || rn.right == NIL {
                break;
            }
            t.erase(&mut nodes, r);
            expect.retain(|&x| x != r);
            verify(&t, &expect, &nodes, "erase root");
            assert!(!t.contains(&nodes, r));
        }
        assert!(expect.len() < 7, "erased at least one two-child root");
    }

    #[test]
    fn single_node_tree() {
        let mut nodes = vec![node(42, 7, 3)];
        let mut t = RbRoot::new();
        assert!(t.is_empty());
        assert!(!t.contains(&nodes, 0));
        assert_eq!(t.last(&nodes), NIL);
        assert!(t.insert(&mut nodes, 0));
        assert_eq!(t.len(), 1);
        assert_eq!((t.root(), t.first(), t.last(&nodes)), (0, 0, 0));
        assert_eq!((t.next(&nodes, 0), t.prev(&nodes, 0)), (NIL, NIL));
        assert!(!nodes[0].red, "root is black");
        assert_eq!((nodes[0].min_val, nodes[0].min_slice), (7, 3));
        assert!(t.contains(&nodes, 0));
        assert_eq!(t.check(&nodes), Ok(1));
        nodes[0].val = 1;
        nodes[0].slice = 9;
        t.update_aug(&mut nodes, 0);
        assert_eq!((nodes[0].min_val, nodes[0].min_slice), (1, 9));
        t.erase(&mut nodes, 0);
        assert!(t.is_empty());
        assert_eq!(t.first(), NIL);
        assert_eq!(nodes[0].parent, NIL);
        assert_eq!(t.check(&nodes), Ok(0));
        // The node can go into another tree afterwards.
        let mut t2 = RbRoot::new();
        assert!(t2.insert(&mut nodes, 0));
        assert!(t2.contains(&nodes, 0));
        assert!(!t.contains(&nodes, 0));
    }

    #[test]
    fn stays_logarithmic_100k_sequential() {
        const N: u32 = 100_000;
        let bound = |n: u32| 2.0 * ((f64::from(n) + 1.0).log2());
        // Ascending keys, descending keys, and all-equal keys (ties go right,
        // so all-equal is also "ascending").
        for pattern in 0..3 {
            let mut nodes: Vec<RbNode> = (0..N)
                .map(|i| {
                    let k = match pattern {
                        0 => u64::from(i),
                        1 => u64::from(N - i),
                        _ => 5,
                    };
                    // Start just below the wrap point to also cross it.
                    node(k.wrapping_add(u64::MAX - 50_000), u64::from(i), u64::from(i % 97))
                })
                .collect();
            let mut t = RbRoot::new();
            for id in 0..N {
                let left = t.insert(&mut nodes, id);
                assert_eq!(left, pattern == 1 || id == 0);
            }
            t.check(&nodes).unwrap();
            let h = height(&nodes, t.root());
            assert!(
                (h as f64) <= bound(N),
                "pattern {pattern}: height {h} > {}",
                bound(N)
            );
            assert_eq!(nodes[t.root() as usize].min_val, 0);
            assert_eq!(nodes[t.root() as usize].min_slice, 0);
            // Erase every other node, then re-check the bound.
            for id in (0..N).step_by(2) {
                t.erase(&mut nodes, id);
            }
            t.check(&nodes).unwrap();
            let n = N / 2;
            let h = height(&nodes, t.root());
            assert!((h as f64) <= bound(n), "pattern {pattern} after erase: height {h}");
            assert_eq!(t.len(), n as usize);
        }
    }

    #[test]
    fn next_prev_walk() {
        let mut nodes: Vec<RbNode> = (0..50).map(|i| node((i * 7) % 50, 0, 0)).collect();
        let mut t = RbRoot::new();
        for id in 0..50 {
            t.insert(&mut nodes, id);
        }
        let fwd = collect(&t, &nodes);
        let keys: Vec<u64> = fwd.iter().map(|&i| nodes[i as usize].key).collect();
        assert_eq!(keys, (0..50).collect::<Vec<u64>>());
        assert_eq!(collect_rev(&t, &nodes), fwd);
    }

    #[test]
    fn check_detects_corruption() {
        let mut nodes: Vec<RbNode> = (0..10).map(|i| node(i, i, i)).collect();
        let mut t = RbRoot::new();
        for id in 0..10 {
            t.insert(&mut nodes, id);
        }
        t.check(&nodes).unwrap();
        let good = nodes.clone();

        let r = t.root() as usize;
        nodes[r].min_val = 99;
        assert!(t.check(&nodes).is_err(), "stale min_val");
        nodes = good.clone();
        nodes[r].min_slice = 99;
        assert!(t.check(&nodes).is_err(), "stale min_slice");
        nodes = good.clone();
        nodes[r].red = true;
        assert!(t.check(&nodes).is_err(), "red root");
        nodes = good.clone();
        let l = nodes[r].left as usize;
        nodes[l].parent = NIL;
        assert!(t.check(&nodes).is_err(), "bad parent link");
        nodes = good.clone();
        nodes[9].key = 0;
        assert!(t.check(&nodes).is_err(), "out-of-order key");
        nodes = good;
        let mut bad = t.clone();
        bad.leftmost = 1;
        assert!(bad.check(&nodes).is_err(), "bad leftmost");
        let mut bad = t.clone();
        bad.len = 3;
        assert!(bad.check(&nodes).is_err(), "bad len");
    }
}
