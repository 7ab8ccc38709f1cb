//! The event queue of the simulation.
//!
//! Most events of a busy machine are each CPU's burst end (the running
//! task's `run` completes, or its switch overhead is paid) and its tick.
//! A CPU has at most one of each pending: a context switch makes the old
//! burst end meaningless, and the tick is re-armed only after it fired. So
//! those two live in per-CPU slots, re-armed in place, and everything else
//! (task starts, sleep timers, idle exits) in a binary heap. A winner tree
//! over the CPUs keeps the earliest slot at its root; `pop` takes whichever
//! of that and the heap's top comes first in (time, sequence) order.
//!
//! Every insertion, slot or heap, takes the next sequence number, so the
//! order is exactly that of one heap holding everything: simultaneous
//! events run in the order they were scheduled. A slot that is cleared or
//! overwritten is simply gone, where one heap would hold a stale event
//! until its time came (and a burst end armed at "never" would stay there
//! for good).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

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
}

/// When an event fires and its place among events of the same time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key {
    pub time: u64,
    pub seq: u64,
}

/// An empty slot (sorts after every real event).
const EMPTY: Key = Key { time: u64::MAX, seq: u64::MAX };

#[derive(Clone, Copy, Debug)]
struct Ev {
    key: Key,
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

/// Per-CPU slots and a heap, merged in (time, seq) order.
#[derive(Clone, Debug)]
pub struct Queue {
    heap: BinaryHeap<Ev>,
    seq: u64,
    burst: Vec<Key>,
    tick: Vec<Key>,
    /// Winner tree: node `i` holds the earliest slot key below it and its
    /// CPU; the leaves are `leaves + cpu`, the root is node 1.
    tree: Vec<(Key, u32)>,
    leaves: usize,
}

impl Queue {
    pub fn new(cpus: usize, heap_capacity: usize) -> Queue {
        let leaves = cpus.max(1).next_power_of_two();
        Queue {
            heap: BinaryHeap::with_capacity(heap_capacity),
            seq: 0,
            burst: vec![EMPTY; cpus],
            tick: vec![EMPTY; cpus],
            tree: vec![(EMPTY, 0); 2 * leaves],
            leaves,
        }
    }

    fn next_key(&mut self, time: u64) -> Key {
        self.seq += 1;
        Key { time, seq: self.seq }
    }

    /// Schedules a start, sleep timer or idle exit.
    pub fn push(&mut self, time: u64, kind: EvKind) {
        let key = self.next_key(time);
        self.heap.push(Ev { key, kind });
    }

    /// (Re-)arms `cpu`'s burst end; an earlier one is forgotten.
    pub fn set_burst(&mut self, cpu: u32, time: u64) {
        let key = self.next_key(time);
        self.burst[cpu as usize] = key;
        self.update(cpu);
    }

    /// Forgets `cpu`'s burst end (a context switch).
    pub fn clear_burst(&mut self, cpu: u32) {
        if self.burst[cpu as usize] != EMPTY {
            self.burst[cpu as usize] = EMPTY;
            self.update(cpu);
        }
    }

    /// Arms `cpu`'s tick.
    pub fn set_tick(&mut self, cpu: u32, time: u64) {
        let key = self.next_key(time);
        self.tick[cpu as usize] = key;
        self.update(cpu);
    }

    /// Recomputes the path from `cpu`'s leaf to the root; stops where a
    /// node keeps its winner (nothing above it changes then).
    fn update(&mut self, cpu: u32) {
        let c = cpu as usize;
        let mut i = self.leaves + c;
        self.tree[i] = (self.burst[c].min(self.tick[c]), cpu);
        while i > 1 {
            i /= 2;
            let (l, r) = (self.tree[2 * i], self.tree[2 * i + 1]);
            let win = if r.0 < l.0 { r } else { l };
            if self.tree[i] == win {
                break;
            }
            self.tree[i] = win;
        }
    }

    /// The earliest event's key, if any.
    pub fn peek(&self) -> Option<Key> {
        let slot = self.tree[1].0;
        let top = self.heap.peek().map_or(EMPTY, |e| e.key);
        let k = slot.min(top);
        (k != EMPTY).then_some(k)
    }

    /// Takes the earliest event.
    pub fn pop(&mut self) -> Option<(u64, EvKind)> {
        let (slot, cpu) = self.tree[1];
        let top = self.heap.peek().map_or(EMPTY, |e| e.key);
        if slot < top {
            let c = cpu as usize;
            let kind = if self.burst[c] == slot {
                self.burst[c] = EMPTY;
                EvKind::BurstEnd(cpu)
            } else {
                self.tick[c] = EMPTY;
                EvKind::Tick(cpu)
            };
            self.update(cpu);
            return Some((slot.time, kind));
        }
        self.heap.pop().map(|e| (e.key.time, e.kind))
    }

    /// Events pending (armed slots and the heap).
    pub fn len(&self) -> usize {
        let armed = |v: &Vec<Key>| v.iter().filter(|&&k| k != EMPTY).count();
        self.heap.len() + armed(&self.burst) + armed(&self.tick)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
    /// re-arms and clears must pop in exactly (time, seq) order, with the
    /// overwritten and cleared slot events gone.
    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut rng = Rng::new(7);
        for cpus in [1usize, 3, 8] {
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
                        seq += 1;
                        q.set_tick(cpu, time);
                        live.push((Key { time, seq }, EvKind::Tick(cpu)));
                    }
                    _ => {
                        live.sort_by_key(|e| e.0);
                        let want = (!live.is_empty()).then(|| live.remove(0));
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
