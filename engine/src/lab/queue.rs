//! The event queue of the simulation.
//!
//! Most events of a busy machine are each CPU's burst end (the running
//! task's `run` completes, or its switch overhead is paid) and its tick.
//! A CPU has at most one of each pending: a context switch makes the old
//! burst end meaningless, and the tick is re-armed only after it fired.
//! So burst ends live in per-CPU slots, re-armed in place, with a winner
//! tree over the CPUs keeping the earliest at its root. Ticks are armed on
//! the jiffy grid, at the first boundary after the time they are armed, so
//! they are armed in the order they fire: a FIFO holds them. Everything
//! else (task starts, sleep timers, idle exits) is in a binary heap. `pop`
//! takes whichever of the three comes first in (time, sequence) order.
//!
//! Every insertion, slot or heap, takes the next sequence number, so the
//! order is exactly that of one heap holding everything: simultaneous
//! events run in the order they were scheduled. A slot that is cleared or
//! overwritten is simply gone, where one heap would hold a stale event
//! until its time came (and a burst end armed at "never" would stay there
//! for good).

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvKind {
    /// A task is created.
    Start(u32),
    /// A sleeping task's timer fires.
    Wake(u32),
    /// The running task's burst (a `run`, or the overhead it owes) ends.
    BurstEnd(u32),
    /// A scheduler tick on a CPU.
    Tick(u32),
    /// An idle CPU that was sent work has left its idle state.
    IdleExit(u32),
    /// The hrtimer of a task's `futex_wait` number `seq` expires.
    FutexTimeout { task: u32, seq: u32 },
}

/// When an event fires and its place among events of the same time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key {
    pub time: u64,
    pub seq: u64,
}

/// A key packed as `time << 64 | seq << CPU_BITS | cpu`: one integer
/// comparison orders by time, then sequence (sequence numbers are unique,
/// so the CPU below them never decides an order). A burst end carries its
/// CPU, so the winner tree holds keys alone; other events carry 0.
type Packed = u128;

/// Bits for a CPU number in a key; the sequence keeps 52 bits (4.5·10^15
/// events, decades of simulation at millions of events a second).
const CPU_BITS: u32 = 12;
const _: () = assert!(crate::lab::scenario::MAX_CPUS <= 1 << CPU_BITS);

/// An empty slot (sorts after every real event).
const EMPTY: Packed = u128::MAX;

fn pack(k: Key) -> Packed {
    debug_assert!(k.seq < 1 << (64 - CPU_BITS), "event sequence overflows its key");
    (k.time as u128) << 64 | (k.seq as u128) << CPU_BITS
}

fn unpack(p: Packed) -> Key {
    Key { time: (p >> 64) as u64, seq: (p as u64) >> CPU_BITS }
}

/// The CPU a burst end's key carries.
fn cpu_of(p: Packed) -> u32 {
    (p as u32) & ((1 << CPU_BITS) - 1)
}

#[derive(Clone, Copy, Debug)]
struct Ev {
    key: Packed,
    kind: EvKind,
}

impl PartialEq for Ev {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Ev {}
impl PartialOrd for Ev {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Ev {
    /// Reversed, so that BinaryHeap (a max-heap) pops the earliest event.
    fn cmp(&self, o: &Self) -> Ordering {
        o.key.cmp(&self.key)
    }
}

/// Replays the matches on the path from tree node `node` to the root.
/// Each node holds its subtree's earliest key, which names its CPU, so a
/// level is one load of the sibling, a compare and one store (a tree of
/// CPUs alone would load the sibling's winner, then that CPU's key; key
/// and CPU in two arrays, or side by side in a 32-byte node, cost more:
/// README, Performance). The whole path is walked, for any number of
/// changed leaves: stopping where a node is unchanged was measured to
/// save nothing, since both paths an event typically changes (the CPU
/// whose burst ended and the CPU it woke) change up to the root.
///
/// The match is a select, not a branch: which side wins is a coin toss to
/// the branch predictor (measured under cachegrind's branch simulation,
/// hackbench 24 groups on xeon-8260-2s for 10 ms: conditional
/// mispredictions 8.48 M → 3.32 M for 4.9 % more instructions; README,
/// Performance).
fn replay(tree: &mut [Packed], mut node: usize) {
    let mut k = tree[node];
    while node > 1 {
        let sk = tree[node ^ 1];
        node /= 2;
        k = earlier(sk, k);
        tree[node] = k;
    }
}

/// The earlier of two keys, without a branch. On x86 a mask, all ones if
/// `a` wins, kept opaque by black_box: LLVM turns a plain select (and
/// `select_unpredictable`) back into a branch there. wasm has no inline
/// assembly, so black_box goes through memory, and V8 compiles wasm's
/// `select` without a branch: there the plain select is cheaper
/// (cachegrind around `node --no-liftoff`, hackbench: 21.34 G → 20.19 G
/// instructions, conditional mispredictions 99.6 M → 87.7 M; README,
/// Performance).
#[inline(always)]
fn earlier(a: Packed, b: Packed) -> Packed {
    if cfg!(target_arch = "wasm32") {
        if a < b {
            a
        } else {
            b
        }
    } else {
        let take = std::hint::black_box(((a < b) as u64).wrapping_neg());
        let take128 = (take as u128) << 64 | take as u128;
        (a & take128) | (b & !take128)
    }
}

/// Per-CPU slots and a heap, merged in (time, seq) order.
///
/// Slot changes are applied to the winner tree lazily, once per event
/// (`settle`): an event that pops a CPU's slot and re-arms it walks the
/// CPU's path once, not twice.
#[derive(Clone, Debug)]
pub struct Queue {
    heap: BinaryHeap<Ev>,
    seq: u64,
    burst: Vec<Packed>,
    /// Armed ticks in arming order, which is firing order.
    ticks: VecDeque<(Packed, u32)>,
    /// Winner tree over the CPUs (padded to a power of two): `tree[i]` is
    /// the earliest burst end below node `i` as of the last `settle`;
    /// node 1 is the root, leaf `leaves + c` is CPU c.
    tree: Vec<Packed>,
    leaves: usize,
    /// CPUs whose slots changed since the last `settle`.
    dirty: Vec<u32>,
    is_dirty: Vec<bool>,
}

impl Queue {
    pub fn new(cpus: usize, heap_capacity: usize) -> Queue {
        let leaves = cpus.max(1).next_power_of_two();
        let tree = vec![EMPTY; 2 * leaves];
        Queue {
            heap: BinaryHeap::with_capacity(heap_capacity),
            seq: 0,
            burst: vec![EMPTY; cpus],
            ticks: VecDeque::with_capacity(cpus),
            tree,
            leaves,
            dirty: Vec::with_capacity(cpus),
            is_dirty: vec![false; cpus],
        }
    }

    fn next_key(&mut self, time: u64) -> Packed {
        self.seq += 1;
        pack(Key { time, seq: self.seq })
    }

    fn touch(&mut self, cpu: u32) {
        if !std::mem::replace(&mut self.is_dirty[cpu as usize], true) {
            self.dirty.push(cpu);
        }
    }

    /// Schedules a start, sleep timer or idle exit.
    pub fn push(&mut self, time: u64, kind: EvKind) {
        let key = self.next_key(time);
        self.heap.push(Ev { key, kind });
    }

    /// (Re-)arms `cpu`'s burst end; an earlier one is forgotten.
    pub fn set_burst(&mut self, cpu: u32, time: u64) {
        self.burst[cpu as usize] = self.next_key(time) | cpu as Packed;
        self.touch(cpu);
    }

    /// Forgets `cpu`'s burst end (a context switch).
    pub fn clear_burst(&mut self, cpu: u32) {
        if self.burst[cpu as usize] != EMPTY {
            self.burst[cpu as usize] = EMPTY;
            self.touch(cpu);
        }
    }

    /// Arms a tick of `cpu`, at or after every tick armed before it (the
    /// jiffy grid guarantees it).
    pub fn set_tick(&mut self, cpu: u32, time: u64) {
        let key = self.next_key(time);
        debug_assert!(self.ticks.back().is_none_or(|&(k, _)| k < key), "ticks armed out of order");
        self.ticks.push_back((key, cpu));
    }

    /// Brings the winner tree up to date with the slots.
    pub fn settle(&mut self) {
        for &c in &self.dirty {
            let c = c as usize;
            self.tree[self.leaves + c] = self.burst[c];
            self.is_dirty[c] = false;
        }
        for &cpu in &self.dirty {
            replay(&mut self.tree, self.leaves + cpu as usize);
        }
        self.dirty.clear();
    }

    /// The earliest slot, as of the last `settle`.
    fn first_slot(&self) -> (Packed, u32) {
        (self.tree[1], cpu_of(self.tree[1]))
    }

    /// The earliest event's key, if any (the queue must be settled).
    pub fn peek(&self) -> Option<Key> {
        debug_assert!(self.dirty.is_empty(), "peek on an unsettled queue");
        let top = self.heap.peek().map_or(EMPTY, |e| e.key);
        let tick = self.ticks.front().map_or(EMPTY, |t| t.0);
        let k = self.first_slot().0.min(top).min(tick);
        (k != EMPTY).then(|| unpack(k))
    }

    /// Takes the earliest event.
    pub fn pop(&mut self) -> Option<(u64, EvKind)> {
        self.pop_until(u64::MAX)
    }

    /// Takes the earliest event if it fires at or before `limit`.
    pub fn pop_until(&mut self, limit: u64) -> Option<(u64, EvKind)> {
        self.settle();
        let (slot, cpu) = self.first_slot();
        let top = self.heap.peek().map_or(EMPTY, |e| e.key);
        let tick = self.ticks.front().map_or(EMPTY, |t| t.0);
        let first = slot.min(top).min(tick);
        if first == EMPTY || unpack(first).time > limit {
            return None;
        }
        if first == slot {
            self.burst[cpu as usize] = EMPTY;
            self.touch(cpu);
            return Some((unpack(slot).time, EvKind::BurstEnd(cpu)));
        }
        if first == tick {
            let (_, cpu) = self.ticks.pop_front()?;
            return Some((unpack(tick).time, EvKind::Tick(cpu)));
        }
        self.heap.pop().map(|e| (unpack(e.key).time, e.kind))
    }

    /// Events pending (armed slots and the heap).
    pub fn len(&self) -> usize {
        let armed = |v: &Vec<Packed>| v.iter().filter(|&&k| k != EMPTY).count();
        self.heap.len() + armed(&self.burst) + self.ticks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the leaves hold the slots and every node the earlier of
    /// its children's keys (for tests).
    #[cfg(test)]
    fn tree_is_consistent(&self) -> bool {
        let leaves_hold_slots = (0..self.burst.len()).all(|c| self.tree[self.leaves + c] == self.burst[c]);
        leaves_hold_slots && (1..self.leaves).all(|i| self.tree[i] == self.tree[2 * i].min(self.tree[2 * i + 1]))
    }

    /// The heap's allocated capacity, in events (for memory tests).
    pub fn heap_capacity(&self) -> usize {
        self.heap.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::rng::Rng;

    /// Against one sorted list of everything pushed: random pushes, slot
    /// re-arms and clears and ticks on a grid must pop in exactly
    /// (time, seq) order, with the overwritten and cleared slot events gone.
    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut rng = Rng::new(7);
        for cpus in [1usize, 3, 8, 96] {
            let mut q = Queue::new(cpus, 4);
            // The model: every live event with its key.
            let mut live: Vec<(Key, EvKind)> = Vec::new();
            let mut seq = 0;
            let mut now = 0;
            for _ in 0..5000 {
                let cpu = rng.uniform(0, cpus as u64 - 1) as u32;
                // Few distinct times, so that ties are common.
                let time = now + rng.uniform(0, 4) * 10;
                match rng.uniform(0, 5) {
                    0 | 1 => {
                        seq += 1;
                        q.push(time, EvKind::Wake(cpu));
                        live.push((Key { time, seq }, EvKind::Wake(cpu)));
                    }
                    2 => {
                        seq += 1;
                        q.set_burst(cpu, time);
                        live.retain(|e| e.1 != EvKind::BurstEnd(cpu));
                        live.push((Key { time, seq }, EvKind::BurstEnd(cpu)));
                    }
                    3 => {
                        q.clear_burst(cpu);
                        live.retain(|e| e.1 != EvKind::BurstEnd(cpu));
                    }
                    4 if !live.iter().any(|e| e.1 == EvKind::Tick(cpu)) => {
                        // On the grid: the first multiple of 40 after now.
                        let time = (now / 40 + 1) * 40;
                        seq += 1;
                        q.set_tick(cpu, time);
                        live.push((Key { time, seq }, EvKind::Tick(cpu)));
                    }
                    _ => {
                        live.sort_by_key(|e| e.0);
                        let want = (!live.is_empty()).then(|| live.remove(0));
                        q.settle();
                        assert!(q.tree_is_consistent());
                        assert_eq!(q.peek(), want.map(|e| e.0));
                        let got = q.pop();
                        assert_eq!(got, want.map(|e| (e.0.time, e.1)));
                        if let Some((t, _)) = got {
                            now = t;
                        }
                    }
                }
                assert_eq!(q.len(), live.len());
            }
        }
    }
}
