//! The run queue's red-black tree on one CPU (SVG): the real tree of the
//! snapshot with each node's colour, sort key and augmented minimum, the
//! cached leftmost node, the running entity apart (the kernel keeps curr out
//! of the tree), and the last pick_eevdf() with the path it walked.
//!
//! With task groups, a group's entity sits in its parent's tree and owns a
//! queue of its own on that CPU: clicking the entity (or its button below
//! the header) opens that queue, and the breadcrumb goes back up.

use std::collections::HashMap;

use leptos::prelude::*;
use schedlab_engine::lab::explain::pick_reason_label;
use schedlab_engine::lab::snapshot::{CpuView, TreeNode};

use crate::export::{save_svg, ExportButtons};
use crate::fmt;
use crate::state::{use_ctx, Ctx, PickInfo};

const DX: f64 = 84.0;
const DY: f64 = 78.0;
const R: f64 = 21.0;
const TOP: f64 = 40.0;
const CURR_W: f64 = 176.0;

/// Where each node goes: x from its in-order position, y from its depth.
pub fn layout(tree: &[TreeNode]) -> Vec<(f64, f64, usize)> {
    let index: HashMap<u32, usize> = tree
        .iter()
        .enumerate()
        .map(|(i, n)| (n.entity, i))
        .collect();
    tree.iter()
        .enumerate()
        .map(|(i, n)| {
            let mut depth = 0;
            let mut p = n.parent;
            while let Some(e) = p {
                depth += 1;
                if depth > tree.len() {
                    break; // malformed: never loop
                }
                p = index.get(&e).and_then(|&j| tree[j].parent);
            }
            (
                CURR_W + 24.0 + DX * (i as f64 + 0.5),
                TOP + 10.0 + DY * depth as f64,
                depth,
            )
        })
        .collect()
}

/// The width a node's key is squeezed to when it would spill out of the
/// node (the task ring's inside, 2·(R − 3) − 4): monospace glyphs are
/// 0.6 em wide at the key's 12 px, so "−12.345" would take 50 px of a
/// 42 px circle. None: the key fits as it is.
fn key_fit(key: &str) -> Option<f64> {
    let inner = 2.0 * (R - 3.0) - 4.0;
    (key.chars().count() as f64 * 0.6 * 12.0 > inner).then_some(inner)
}

/// A name that fits under a node (DX wide at the tree's font).
fn short(name: &str) -> String {
    if name.chars().count() > 11 {
        format!("{}…", name.chars().take(10).collect::<String>())
    } else {
        name.to_string()
    }
}

#[component]
pub fn TreeView() -> impl IntoView {
    let ui = use_ctx().ui;
    let header = move || {
        ui.frame.with(|f| {
            let v = &f.view;
            let order = if !ui.setup.with(|s| s.eevdf) {
                "sorted by vruntime (CFS: the leftmost runs next)"
            } else if v.sorted_by_deadline {
                "sorted by deadline, augmented with min vruntime"
            } else {
                "sorted by vruntime, augmented with min deadline (v6.6)"
            };
            let how = if f.pinned { "chosen" } else { "of this event" };
            let queue = match f.queue.last() {
                Some((_, name)) => format!("group {name}'s queue"),
                None => "root queue".to_string(),
            };
            format!(
                "CPU {} ({how}) · {queue} · {} queued ({} in the tree) · {order}",
                f.cpu,
                v.nr_queued,
                v.tree.len()
            )
        })
    };
    let pick_line = move || {
        ui.frame.with(|f| match &f.pick {
            Some(p) => {
                let who = p.task.map_or("idle".to_string(), |t| {
                    ui.setup.with(|s| s.name(t).to_string())
                });
                let ago = if p.event == f.event {
                    "this event".to_string()
                } else {
                    format!("event {}", p.event)
                };
                let cfs = !ui.setup.with(|s| s.eevdf);
                format!(
                    "last pick ({ago}): {who} · {} · visited {} node{}",
                    pick_reason_label(p.reason, cfs),
                    p.path.len(),
                    if p.path.len() == 1 { "" } else { "s" }
                )
            }
            None => "no pick yet on this CPU".to_string(),
        })
    };
    let ctx = use_ctx();
    let follow = move || {
        ui.frame.with(|f| f.pinned).then(|| view! {
            <button class="small" data-testid="btn-follow" title="show the CPU of each event again" on:click=move |_| ctx.pin_cpu(None)>
                "follow events"
            </button>
        })
    };
    // Group entities queued here, with the group each one stands for.
    let groups_here = move || {
        let ents: Vec<(u32, String)> = ui.frame.with(|f| {
            f.view
                .entities
                .iter()
                .filter(|e| e.task.is_none())
                .map(|e| (e.entity, e.name.clone()))
                .collect()
        });
        ents.into_iter()
            .filter_map(|(se, name)| Some((group_of(ctx, se)?, name)))
            .collect::<Vec<_>>()
    };
    let path = move || {
        let (cpu, queue) = ui.frame.with(|f| (f.cpu, f.queue.clone()));
        let depth = queue.len();
        let crumbs = queue
            .into_iter()
            .enumerate()
            .map(|(i, (_, name))| {
                let last = i + 1 == depth;
                view! {
                    <span class="crumb-sep" aria-hidden="true">"›"</span>
                    <button class="small crumb" data-testid="queue-crumb" disabled=last aria-current=if last { "true" } else { "false" }
                        on:click=move |_| ctx.queue_up_to(i + 1)>{format!("[{name}]")}</button>
                }
            })
            .collect_view();
        let groups = groups_here();
        let open = (!groups.is_empty()).then(|| {
            view! {
                <span class="muted">" · open a group's queue: "</span>
                {groups.into_iter().map(|(g, name)| view! {
                    <button class="small" data-testid="open-group" data-group=g title="show this group's own run queue on this CPU"
                        on:click=move |_| ctx.open_group(Some(g))>{name}</button>
                }).collect_view()}
            }
        });
        (depth > 0 || open.is_some()).then(|| view! {
            <nav class="queue-path" data-testid="queue-path" data-depth=depth aria-label="run queue shown">
                <button class="small crumb" data-testid="queue-root" disabled=depth == 0 on:click=move |_| ctx.queue_up_to(0)>{format!("CPU {cpu} root")}</button>
                {crumbs}
                {open}
            </nav>
        })
    };
    // A click on a node: in quiz mode a guess (a task's entity), else a
    // group's entity opens its queue.
    let on_group = move |se: u32| {
        if ui.quiz.with_untracked(|q| q.as_ref().is_some_and(|q| q.asking())) {
            if let Some(t) = ui.frame.with_untracked(|f| f.view.entities.iter().find(|e| e.entity == se).and_then(|e| e.task)) {
                ctx.guess(t);
                return;
            }
        }
        if let Some(g) = group_of(ctx, se) {
            ctx.open_group(Some(g));
        }
    };
    let svg_box = NodeRef::<leptos::html::Div>::new();
    let prefix = crate::export::figure_prefix();
    let export = Callback::new(move |(light, png): (bool, bool)| {
        let el = svg_box.get_untracked().and_then(|b| b.query_selector("svg").ok().flatten()).ok_or("no tree drawn")?;
        let cpu = ui.frame.with_untracked(|f| f.cpu);
        save_svg(&el, &format!("{prefix}-tree-cpu{cpu}"), light, png)
    });
    let cfs = move || !ui.setup.with(|s| s.eevdf);
    view! {
        <section class="panel tree-panel" data-testid="tree-panel">
            <h2>"Run queue tree" <span class="sub">{header}</span> {follow} <ExportButtons name="tree" target=export /></h2>
            {path}
            <div class="pick-line" data-testid="pick-line">{pick_line}</div>
            <div class="svg-fit" node_ref=svg_box>{move || {
                let scale = if ui.big.get() { 1.5 } else { 1.0 };
                let quiz = ui.quiz.with(|q| q.as_ref().is_some_and(|q| q.asking()));
                ui.frame.with(|f| tree_svg(&f.view, if quiz { None } else { f.pick.as_ref() }, scale, on_group))
            }}</div>
            <div class="legend">
                <span class="lg red-node">"red"</span>
                <span class="lg black-node">"black"</span>
                <span class="lg task-ring">"ring: the task's colour"</span>
                {move || if cfs() {
                    view! {
                        <span class="lg leftmost-ring">"cached leftmost (runs next unless a buddy)"</span>
                        <span class="lg">"N / L / S: next, last, skip buddy"</span>
                        <span class="muted">"key: vruntime, ms relative to min_vruntime (CFS keys the tree by vruntime)"</span>
                    }.into_any()
                } else {
                    view! {
                        <span class="lg elig-ring">"eligible (v ≤ V)"</span>
                        <span class="lg leftmost-ring">"cached leftmost"</span>
                        <span class="lg path-step">"1 2 3 pick_eevdf() walk"</span>
                        <span class="muted">"numbers: key / augmented min, ms relative to min_vruntime"</span>
                    }.into_any()
                }}
            </div>
        </section>
    }
}

/// The group a group entity stands for (None for a task's entity).
fn group_of(ctx: Ctx, se: u32) -> Option<u32> {
    ctx.with_lab(|l| {
        let sched = l.player.sim().sched();
        sched.entity_queue(se)?;
        sched.ents.get(se as usize).map(|e| e.tg)
    })
    .flatten()
}

fn tree_svg(
    v: &CpuView,
    pick: Option<&PickInfo>,
    scale: f64,
    on_group: impl Fn(u32) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let base = v.min_vruntime;
    let cfs = !v.eevdf;
    let pos = layout(&v.tree);
    let max_depth = pos.iter().map(|p| p.2).max().unwrap_or(0);
    let width = (CURR_W + 48.0 + DX * v.tree.len().max(1) as f64).max(360.0);
    let height = (TOP + 10.0 + DY * (max_depth as f64 + 1.0)).max(150.0);
    let names: HashMap<u32, (&str, bool, Option<u32>)> = v
        .entities
        .iter()
        .map(|e| (e.entity, (e.name.as_str(), e.eligible && !cfs, e.task)))
        .collect();
    let buddies: HashMap<u32, String> = v
        .entities
        .iter()
        .map(|e| {
            let mut b = String::new();
            if cfs && e.next_buddy {
                b.push('N');
            }
            if e.last_buddy {
                b.push('L');
            }
            if e.skip_buddy {
                b.push('S');
            }
            (e.entity, b)
        })
        .collect();
    let index: HashMap<u32, usize> = v
        .tree
        .iter()
        .enumerate()
        .map(|(i, n)| (n.entity, i))
        .collect();
    // The chosen entity, and the walk (entities in visiting order).
    let picked_task = pick.and_then(|p| p.task);
    let path: Vec<u32> = pick.map(|p| p.path.clone()).unwrap_or_default();
    let step_of = |e: u32| path.iter().position(|&x| x == e).map(|i| i + 1);

    let edges = v
        .tree
        .iter()
        .enumerate()
        .filter_map(|(i, n)| {
            let pi = *index.get(&n.parent?)?;
            let (x0, y0, _) = pos[pi];
            let (x1, y1, _) = pos[i];
            let on_path = step_of(n.entity).is_some() && step_of(v.tree[pi].entity).is_some();
            Some(view! {
                <line x1=x0 y1=y0 x2=x1 y2=y1 class=if on_path { "edge edge-path" } else { "edge" } />
            })
        })
        .collect_view();

    let nodes = v
        .tree
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let (x, y, _) = pos[i];
            let (name, eligible, task) = names.get(&n.entity).copied().unwrap_or(("?", false, None));
            let leftmost = v.leftmost == Some(n.entity);
            let group = task.is_none();
            let se = n.entity;
            let picked = task.is_some() && task == picked_task;
            let step = step_of(n.entity);
            let key = fmt::rel_s(n.key, base);
            let fit = key_fit(&key);
            let aug = fmt::rel_s(n.aug_min, base);
            let tip = if cfs {
                format!("{name} (entity {})\nvruntime (key): {key} ms\n{}", n.entity, if n.red { "red" } else { "black" })
            } else {
                format!(
                    "{name} (entity {})\n{}: {key} ms\naugmented min: {aug} ms\nmin slice in subtree: {}\n{}{}",
                    n.entity,
                    if v.sorted_by_deadline { "deadline (key)" } else { "vruntime (key)" },
                    fmt::ms(n.min_slice),
                    if n.red { "red" } else { "black" },
                    if eligible { ", eligible" } else { ", not eligible" }
                )
            };
            let ring = task.map(fmt::task_color);
            let buddy = buddies.get(&n.entity).cloned().unwrap_or_default();
            view! {
                <g
                    class=if group { "tree-node group-node" } else { "tree-node" }
                    data-testid="tree-node"
                    data-group=if group { "true" } else { "false" }
                    role=group.then_some("button")
                    tabindex=group.then_some("0")
                    aria-label=group.then(|| format!("open group {name}'s queue"))
                    on:click=move |_| on_group(se)
                    on:keydown=move |ev: web_sys::KeyboardEvent| { if group && (ev.key() == "Enter" || ev.key() == " ") { ev.prevent_default(); on_group(se) } }
                    data-entity=n.entity
                    data-parent=n.parent.map(|p| p.to_string()).unwrap_or_default()
                    data-red=if n.red { "true" } else { "false" }
                    data-eligible=if eligible { "true" } else { "false" }
                >
                    <title>{tip}</title>
                    {eligible.then(|| view! { <circle cx=x cy=y r=R + 4.0 class="elig-ring" /> })}
                    {leftmost.then(|| view! { <circle cx=x cy=y r=R + 8.0 class="leftmost-ring" data-testid="tree-leftmost" /> })}
                    {picked.then(|| view! { <circle cx=x cy=y r=R + 11.0 class="picked-ring" data-testid="tree-picked" /> })}
                    <circle cx=x cy=y r=R class=if n.red { "node red" } else { "node black" } />
                    {ring.map(|c| view! { <circle cx=x cy=y r=R - 3.0 class="task-ring" style=format!("stroke:{c}") /> })}
                    <text x=x y=y + 5.0 class="node-key" text-anchor="middle" textLength=fit lengthAdjust=fit.map(|_| "spacingAndGlyphs")>{key}</text>
                    <text x=x y=y + R + 15.0 class="node-name" text-anchor="middle">{short(name)}</text>
                    {(!cfs).then(|| view! { <text x=x y=y + R + 29.0 class="node-num aug" text-anchor="middle">{format!("↓{aug}")}</text> })}
                    {(!buddy.is_empty()).then(|| view! { <text x=x - R * 0.9 y=y - R * 0.8 class="node-tag buddy" text-anchor="middle" data-testid="tree-buddy">{buddy.clone()}</text> })}
                    {leftmost.then(|| view! { <text x=x y=y - R - 12.0 class="node-tag" text-anchor="middle">"leftmost"</text> })}
                    {step.map(|s| view! {
                        <g class="path-step" data-testid="tree-path-step">
                            <circle cx=x + R * 0.8 cy=y - R * 0.8 r=8.0 />
                            <text x=x + R * 0.8 y=y - R * 0.8 + 3.5 text-anchor="middle">{s}</text>
                        </g>
                    })}
                </g>
            }
        })
        .collect_view();

    // The running entity, kept out of the tree.
    let curr = v.entities.iter().find(|e| e.curr).map(|e| {
        let picked = e.task.is_some() && e.task == picked_task;
        let lines = if cfs {
            vec![
                format!("vruntime {}", fmt::rel_s(e.vruntime, base)),
                format!("ran {:.2} of", e.cfs_ran as f64 / 1e6),
                format!("sched_slice {:.2} ms", e.cfs_slice as f64 / 1e6),
                format!("wakeup_gran {:.2} ms", e.wakeup_gran as f64 / 1e6),
            ]
        } else {
            vec![
                format!("vruntime {}", fmt::rel_s(e.vruntime, base)),
                format!("deadline {}", fmt::rel_s(e.deadline, base)),
                format!("lag {}", fmt::ms_signed(e.lag)),
                format!(
                    "{}{}",
                    if e.eligible {
                        "eligible"
                    } else {
                        "not eligible"
                    },
                    if e.protected { ", protected" } else { "" }
                ),
            ]
        };
        (e.name.clone(), picked, lines, e.entity)
    });
    let curr_box = match curr {
        Some((name, picked, lines, se)) => view! {
            <g data-testid="tree-curr" data-entity=se class=if picked { "curr picked" } else { "curr" } on:click=move |_| on_group(se)>
                <rect x=8.0 y=TOP - 4.0 width=CURR_W height=112.0 rx=8.0 class="curr-box" />
                <text x=18.0 y=TOP + 14.0 class="curr-title">{format!("running: {}", short(&name))}</text>
                {lines.into_iter().enumerate().map(|(i, l)| view! {
                    <text x=18.0 y=TOP + 34.0 + 17.0 * i as f64 class="curr-line">{l}</text>
                }).collect_view()}
                <text x=18.0 y=TOP + 124.0 class="node-tag">{if picked { "picked; not in the tree (curr)" } else { "curr: not in the tree" }}</text>
            </g>
        }
        .into_any(),
        None => view! {
            <g data-testid="tree-curr-idle">
                <rect x=8.0 y=TOP - 4.0 width=CURR_W height=40.0 rx=8.0 class="curr-box idle" />
                <text x=18.0 y=TOP + 20.0 class="curr-title">"idle"</text>
            </g>
        }
        .into_any(),
    };
    let empty = v.tree.is_empty().then(|| {
        view! { <text x=CURR_W + 40.0 y=TOP + 20.0 class="muted-text">"tree empty"</text> }
    });
    view! {
        <svg
            class="tree"
            data-testid="tree"
            data-nodes=v.tree.len()
            data-cfs=cfs.to_string()
            width=width * scale
            height=height * scale
            viewBox=format!("0 0 {width} {height}")
            style=format!("max-width:100%;height:auto;aspect-ratio:{width}/{height}")
        >
            {curr_box}
            {edges}
            {nodes}
            {empty}
        </svg>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(e: u32, parent: Option<u32>) -> TreeNode {
        TreeNode {
            entity: e,
            parent,
            left: None,
            right: None,
            red: false,
            key: 0,
            aug_min: 0,
            min_slice: 0,
        }
    }

    #[test]
    fn layout_uses_inorder_for_x_and_depth_for_y() {
        // In order: 1 (left of 2), 2 (root), 3 (right of 2).
        let t = vec![node(1, Some(2)), node(2, None), node(3, Some(2))];
        let p = layout(&t);
        assert!(p[0].0 < p[1].0 && p[1].0 < p[2].0);
        assert_eq!((p[0].2, p[1].2, p[2].2), (1, 0, 1));
        // A parent cycle does not hang.
        let bad = vec![node(1, Some(2)), node(2, Some(1))];
        assert_eq!(layout(&bad).len(), 2);
    }
}
