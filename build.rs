//! Deflates the scenario files the page ships (assets/presets, assets/compare
//! and assets/studies, 44 kB of commented TOML) into OUT_DIR, one stream
//! per directory: the page's .wasm has a size budget, and the files share
//! most of their comments, so together they deflate to a third of what
//! they take one by one (the study files: 2.8 kB against 10.7 kB).
//! `presets.rs` inflates each directory on first use with the inflater the
//! page already links for its links (engine/build.rs does the same for the
//! seed tables).

use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for dir in ["presets", "compare", "studies"] {
        let src = PathBuf::from("assets").join(dir);
        println!("cargo:rerun-if-changed={}", src.display());
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&src)
            .unwrap_or_else(|e| panic!("{}: {e}", src.display()))
            .map(|entry| entry.expect("a readable directory").path())
            .filter(|path| path.extension().is_some_and(|e| e == "toml"))
            .collect();
        paths.sort();
        // "name\0text\0" per file: neither a file name nor TOML text holds NUL.
        let mut all = Vec::new();
        for path in &paths {
            let text = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(!text.contains(&0), "{}: a NUL byte", path.display());
            all.extend_from_slice(path.file_name().unwrap().to_string_lossy().as_bytes());
            all.push(0);
            all.extend_from_slice(&text);
            all.push(0);
        }
        let deflated = miniz_oxide::deflate::compress_to_vec(&all, 10);
        std::fs::write(out.join(format!("{dir}.deflate")), deflated).expect("OUT_DIR is writable");
    }
}
