//! Deflates the scenario files the page ships (assets/presets, assets/compare
//! and assets/studies, 38 kB of commented TOML) into OUT_DIR: the page's
//! .wasm has a size budget, deflated they are about a third of it, and
//! `presets.rs` inflates each list on first use with the inflater the page
//! already links for its links (engine/build.rs does the same for the seed
//! tables).

use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for dir in ["presets", "compare", "studies"] {
        let src = PathBuf::from("assets").join(dir);
        println!("cargo:rerun-if-changed={}", src.display());
        std::fs::create_dir_all(out.join(dir)).expect("OUT_DIR is writable");
        for entry in std::fs::read_dir(&src).unwrap_or_else(|e| panic!("{}: {e}", src.display())) {
            let path = entry.expect("a readable directory").path();
            if path.extension().is_some_and(|e| e == "toml") {
                let text = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let name = format!("{}.deflate", path.file_name().unwrap().to_string_lossy());
                std::fs::write(out.join(dir).join(name), miniz_oxide::deflate::compress_to_vec(&text, 10)).expect("OUT_DIR is writable");
            }
        }
    }
}
