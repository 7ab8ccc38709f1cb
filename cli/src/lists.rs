//! The listings: workloads, patches, kernel presets, feature flags.

use schedlab_engine::kernel::sched::features::Feature;
use schedlab_engine::kernel::sched::presets;

pub fn workloads() -> String {
    let mut out = String::new();
    for k in schedlab_engine::lab::workload::KINDS {
        out += &format!("{}\n  {}\n", k.name, k.about);
        for p in k.params.iter().chain(schedlab_engine::lab::workload::COMMON) {
            out += &format!("  {:<16} {:<28} {}\n", p.name, format!("(default {})", p.default), p.about);
        }
        out += "\n";
    }
    out
}

pub fn patches() -> String {
    let mut out = String::new();
    for p in schedlab_engine::kernel::patches::PATCHES {
        let flags: Vec<String> = p.flags.iter().map(|(f, on)| format!("{}{}", if *on { "" } else { "NO_" }, f.name())).collect();
        let mut changes = flags.join(" ");
        if let Some(b) = p.base_slice_normalized {
            changes += &format!("{}base_slice (normalized) = {b} ns", if changes.is_empty() { "" } else { " " });
        }
        out += &format!("{}\n  {}\n  source: {}\n  {}\n  sets: {}\n\n", p.name, p.title, p.source, p.summary, changes);
    }
    out
}

pub fn presets() -> String {
    let mut out = String::new();
    for p in presets::presets() {
        out += &format!("{}\n  {}\n  source: {}\n  base_slice (normalized): {} ns\n  features:", p.name, p.summary, p.source, p.base_slice_normalized);
        for f in Feature::ALL {
            let on = p.features.has(*f);
            out += &format!(" {}{}", if on { "" } else { "NO_" }, f.name());
        }
        out += "\n\n";
    }
    out
}

/// `features --missing`: the kernel behaviours no flag turns on.
pub fn missing() -> String {
    let mut out = String::from("Kernel scheduler behaviour schedlab does not model (no flag turns it on):\n\n");
    for m in schedlab_engine::kernel::sched::features::MISSING {
        out += &format!("{}\n  kernel: {}\n  in schedlab: {}\n\n", m.name, m.kernel, m.difference);
    }
    out
}

pub fn features() -> String {
    let mut out = String::new();
    for f in Feature::ALL {
        let d = f.defaults();
        let defaults: Vec<String> =
            schedlab_engine::kernel::sched::features::PRESET_NAMES.iter().zip(d).map(|(p, on)| format!("{p}:{}", if on { "on" } else { "off" })).collect();
        out += &format!("{}  [{}]\n  origin: {}\n  {}\n\n", f.name(), defaults.join(" "), f.origin(), f.doc().replace('\n', "\n  "));
    }
    out
}
