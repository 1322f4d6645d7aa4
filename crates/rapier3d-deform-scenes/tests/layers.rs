//! Contract: the library's modules form layers without loops. Every `crate::<module>` path in the
//! code of `crates/rapier3d-deform/src` (in `use` items, `use crate::{a, b::c}` groups and
//! qualified paths; `super::` chains that reach the crate root count too) names a module of a
//! layer *above* the one of the file it is in. Comments and doc comments do not count (doc links
//! may point anywhere), nor do string and character literals.
//!
//! A module of the library that is not in [`LAYERS`] fails the test: place it before using it.
//! Every source file starts with a one-line `//!` summary.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The library's top-level modules, top layer first. A module may use the modules of the layers
/// before its own, never its own layer's siblings nor anything after it.
const LAYERS: &[&[&str]] = &[
    &["error"],
    &["limits"],
    &["math"],
    &["mesh"],
    &["governor"],
    &["deformation"],
    // Loaders: meshes, skeletons, clips and deformers from files.
    &["io"],
    &["bounds"],
    &["geometry"],
    // Loop limit surfaces: eigenstructure, normal bounds, interference detection (uses the exact
    // triangle tests of `geometry` for the flat polygons).
    &["limit_surface"],
    &["bn_tree"],
    &["proxy", "plasticity", "avatar"],
    // Cloth: XPBD with the avatar's per-vertex test as its collision stage.
    &["cloth"],
    &["shape"],
    &["query"],
    &["crash", "character"],
    // Debug lines of the crate's shapes (reads `shape`).
    &["debug_render"],
    &["validation"],
    // Re-exports of everything a game uses.
    &["prelude"],
];

fn library_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../rapier3d-deform/src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// The source with comments, string literals and character literals blanked out (newlines kept,
/// so line numbers stay right).
fn strip(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let blank = |out: &mut String, text: &[char]| {
        for &ch in text {
            out.push(if ch == '\n' { '\n' } else { ' ' });
        }
    };
    let mut i = 0;
    while i < c.len() {
        let rest = &c[i..];
        if rest.starts_with(&['/', '/']) {
            let end = rest.iter().position(|&x| x == '\n').unwrap_or(rest.len());
            blank(&mut out, &rest[..end]);
            i += end;
        } else if rest.starts_with(&['/', '*']) {
            // Block comments nest in Rust.
            let (mut depth, mut j) = (0usize, 0usize);
            while j < rest.len() {
                if rest[j..].starts_with(&['/', '*']) {
                    depth += 1;
                    j += 2;
                } else if rest[j..].starts_with(&['*', '/']) {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, &rest[..j]);
            i += j;
        } else if let Some(len) = raw_string_len(rest) {
            blank(&mut out, &rest[..len]);
            i += len;
        } else if rest[0] == '"' {
            let mut j = 1;
            while j < rest.len() && rest[j] != '"' {
                j += if rest[j] == '\\' { 2 } else { 1 };
            }
            let len = (j + 1).min(rest.len());
            blank(&mut out, &rest[..len]);
            i += len;
        } else if rest[0] == '\'' {
            // A character literal ('x', '\n', '\u{..}'), otherwise a lifetime or label.
            let len = if rest.get(1) == Some(&'\\') {
                rest.iter().skip(2).position(|&x| x == '\'').map(|p| p + 3)
            } else if rest.get(2) == Some(&'\'') {
                Some(3)
            } else {
                None
            };
            match len {
                Some(len) => {
                    blank(&mut out, &rest[..len]);
                    i += len;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            out.push(rest[0]);
            i += 1;
        }
    }
    out
}

/// Length of a raw (byte) string literal `r"…"`, `r#"…"#`, `br"…"` starting here.
fn raw_string_len(s: &[char]) -> Option<usize> {
    let start = match s {
        ['r', ..] => 1,
        ['b', 'r', ..] => 2,
        _ => return None,
    };
    let hashes = s[start..].iter().take_while(|&&x| x == '#').count();
    if s.get(start + hashes) != Some(&'"') {
        return None;
    }
    let close: Vec<char> = core::iter::once('"')
        .chain(core::iter::repeat_n('#', hashes))
        .collect();
    let body = start + hashes + 1;
    (body..s.len())
        .find(|&j| s[j..].starts_with(&close))
        .map(|j| j + close.len())
}

fn is_ident(ch: char) -> bool {
    ch.is_alphanumeric() || ch == '_'
}

/// The identifier starting at `i` (after whitespace).
fn ident_at(c: &[char], mut i: usize) -> (String, usize) {
    while i < c.len() && c[i].is_whitespace() {
        i += 1;
    }
    let start = i;
    while i < c.len() && is_ident(c[i]) {
        i += 1;
    }
    (c[start..i].iter().collect(), i)
}

/// `::` at `i` (after whitespace): the index after it.
fn path_sep_at(c: &[char], mut i: usize) -> Option<usize> {
    while i < c.len() && c[i].is_whitespace() {
        i += 1;
    }
    c[i..].starts_with(&[':', ':']).then_some(i + 2)
}

/// The first segments of the paths that follow a `crate::` at `i`: one name, or every entry of
/// a `{…}` group.
fn first_segments(c: &[char], mut i: usize) -> Vec<String> {
    while i < c.len() && c[i].is_whitespace() {
        i += 1;
    }
    if c.get(i) != Some(&'{') {
        let (name, _) = ident_at(c, i);
        // A glob (`crate::*`) names no module.
        return if name.is_empty() { vec![] } else { vec![name] };
    }
    let (mut depth, mut at_entry_start, mut out) = (0, true, Vec::new());
    for j in i + 1..c.len() {
        match c[j] {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => at_entry_start = true,
            ch if at_entry_start && !ch.is_whitespace() => {
                at_entry_start = false;
                let (name, _) = ident_at(c, j);
                if !name.is_empty() {
                    out.push(name);
                }
            }
            _ => {}
        }
    }
    out
}

/// For each character, how many inline `mod name { … }` blocks enclose it.
fn inline_module_depths(c: &[char]) -> Vec<usize> {
    let mut depths = vec![0; c.len()];
    let (mut braces, mut open): (usize, Vec<usize>) = (0, Vec::new());
    let mut i = 0;
    while i < c.len() {
        let word_start = i == 0 || !is_ident(c[i - 1]);
        if word_start
            && c[i..].starts_with(&['m', 'o', 'd'])
            && !c.get(i + 3).is_some_and(|&x| is_ident(x))
        {
            let (name, after) = ident_at(c, i + 3);
            let mut j = after;
            while j < c.len() && c[j].is_whitespace() {
                j += 1;
            }
            if !name.is_empty() && c.get(j) == Some(&'{') {
                braces += 1;
                open.push(braces);
                for d in &mut depths[j..=j] {
                    *d = open.len();
                }
                i = j + 1;
                continue;
            }
        }
        match c[i] {
            '{' => braces += 1,
            '}' => {
                if open.last() == Some(&braces) {
                    open.pop();
                }
                braces = braces.saturating_sub(1);
            }
            _ => {}
        }
        depths[i] = open.len();
        i += 1;
    }
    depths
}

/// A reference of `file` (at `line`) to the top-level item `name` of the crate.
#[derive(Debug, PartialEq)]
struct Reference {
    line: usize,
    name: String,
}

/// Every top-level crate item the code of a file refers to: `crate::x`, `crate::{x, y::z}`, and
/// `super::…::x` chains that climb to the crate root. `module_depth` is how deep the file's
/// module is (`a.rs`, `a/mod.rs`: 1; `a/b.rs`: 2).
fn crate_references(src: &str, module_depth: usize) -> Vec<Reference> {
    let code: Vec<char> = strip(src).chars().collect();
    let inline = inline_module_depths(&code);
    let line_of = |i: usize| code[..i].iter().filter(|&&x| x == '\n').count() + 1;
    let mut out = Vec::new();
    let mut i = 0;
    while i < code.len() {
        let word_start = i == 0 || !is_ident(code[i - 1]);
        if !word_start || !is_ident(code[i]) {
            i += 1;
            continue;
        }
        let (word, after) = ident_at(&code, i);
        let preceded_by_path = {
            let mut j = i;
            while j > 0 && code[j - 1].is_whitespace() {
                j -= 1;
            }
            j >= 2 && code[j - 2..j] == [':', ':']
        };
        if word == "crate" {
            if let Some(next) = path_sep_at(&code, after) {
                for name in first_segments(&code, next) {
                    out.push(Reference {
                        line: line_of(i),
                        name,
                    });
                }
            }
        } else if word == "super" && !preceded_by_path {
            // Climb the chain of `super::`; past the file's own depth it names crate items.
            let (mut climbs, mut at) = (1, path_sep_at(&code, after));
            while let Some(next) = at {
                let (seg, seg_end) = ident_at(&code, next);
                if seg == "super" {
                    climbs += 1;
                    at = path_sep_at(&code, seg_end);
                    continue;
                }
                if climbs >= module_depth + inline[i] {
                    for name in first_segments(&code, next) {
                        out.push(Reference {
                            line: line_of(i),
                            name,
                        });
                    }
                }
                break;
            }
        }
        i = after;
    }
    out
}

/// The top-level module of each root re-export of `lib.rs` (`pub use error::{DeformError,
/// Result};` makes `crate::Result` a reference to `error`); external crates map to `None`.
fn root_reexports(lib: &str) -> HashMap<String, Option<String>> {
    let code: Vec<char> = strip(lib).chars().collect();
    let text: String = code.iter().collect();
    let mut out = HashMap::new();
    for item in text.split(';') {
        let item = item.trim();
        let Some(path) = item.strip_prefix("pub use ") else {
            continue;
        };
        let path: Vec<char> = path.chars().collect();
        let (module, end) = ident_at(&path, 0);
        match path_sep_at(&path, end) {
            Some(next) => {
                for name in first_segments(&path, next) {
                    out.insert(name, Some(module.clone()));
                }
            }
            // `pub use rapier3d;`: an external crate.
            None => {
                out.insert(module, None);
            }
        }
    }
    out
}

/// The top-level module of a file under `src` and its module depth; `None` for `lib.rs`.
fn module_of(relative: &Path) -> Option<(String, usize)> {
    let parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.len() == 1 && parts[0] == "lib.rs" {
        return None;
    }
    let top = parts[0].trim_end_matches(".rs").to_owned();
    let depth = if parts.last().is_some_and(|p| p == "mod.rs") {
        parts.len() - 1
    } else {
        parts.len()
    };
    Some((top, depth))
}

/// Every reference of the library's code that goes to its own layer or a lower one, as
/// `file:line: …` lines.
fn layer_violations(root: &Path) -> Vec<String> {
    let lib = std::fs::read_to_string(root.join("lib.rs")).unwrap();
    let reexports = root_reexports(&lib);
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let mut out = Vec::new();
    for path in &files {
        let relative = path.strip_prefix(root).unwrap();
        let Some((module, depth)) = module_of(relative) else {
            continue;
        };
        let Some(own) = layer_of(&module) else {
            out.push(format!(
                "{}: module `{module}` is not in LAYERS (tests/layers.rs): place it",
                relative.display()
            ));
            continue;
        };
        let src = std::fs::read_to_string(path).unwrap();
        for r in crate_references(&src, depth) {
            let target = match reexports.get(&r.name) {
                Some(None) => continue,
                Some(Some(m)) => m.clone(),
                None => r.name.clone(),
            };
            if target == module {
                continue;
            }
            match layer_of(&target) {
                Some(layer) if layer < own => {}
                Some(layer) => out.push(format!(
                    "{}:{}: `{module}` (layer {}) uses `crate::{}` of `{target}` (layer {}): a module may use only layers above it",
                    relative.display(),
                    r.line,
                    own + 1,
                    r.name,
                    layer + 1
                )),
                None => out.push(format!(
                    "{}:{}: `crate::{}` is neither a module in LAYERS nor a re-export of lib.rs",
                    relative.display(),
                    r.line,
                    r.name
                )),
            }
        }
    }
    out
}

#[test]
fn every_module_uses_only_the_layers_above_it() {
    let violations = layer_violations(&library_src());
    let mut report = String::new();
    for v in &violations {
        writeln!(report, "{v}").unwrap();
    }
    assert!(violations.is_empty(), "layer violations:\n{report}");
}

#[test]
fn every_source_file_starts_with_a_one_line_summary() {
    let root = library_src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(
        files.len() > 50,
        "read {} files under {}",
        files.len(),
        root.display()
    );
    let bad: Vec<String> = files
        .iter()
        .filter(|path| {
            let src = std::fs::read_to_string(path).unwrap();
            let mut lines = src.lines();
            let first = lines.next().unwrap_or("");
            let second = lines.next().unwrap_or("");
            !(first.starts_with("//! ") && first.len() > 8) || second.starts_with("//! ")
        })
        .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
        .collect();
    assert!(
        bad.is_empty(),
        "files without a one-line `//!` summary: {bad:?}"
    );
}

/// The scanner itself: what counts as a reference and what does not.
#[test]
fn the_scanner_finds_grouped_qualified_and_super_paths_but_not_comments_or_strings() {
    let src = r##"//! A file. See [`crate::validation`].
use crate::{bounds::NormalCone, mesh, governor::{Affine, ConvexWeights}};
use super::sibling::Thing;
/// Links to [`crate::io`] do not count; neither does "crate::query" in a string.
fn f<'a>(x: &'a str) -> char {
    /* crate::shape in a block /* nested crate::crash */ comment */
    let _ = crate::bn_tree::BnTree::build;
    let _ = r#"crate::character"#;
    '"'
}
mod tests {
    use super::super::validation::self_collisions_brute_force;
    use super::*;
}
"##;
    let names = |depth| {
        crate_references(src, depth)
            .into_iter()
            .map(|r| (r.line, r.name))
            .collect::<Vec<_>>()
    };
    // A file `a/b.rs` (depth 2): its `super::sibling` stays inside `a`, and the tests' double
    // `super` reaches `a` only.
    assert_eq!(
        names(2),
        vec![
            (2, "bounds".to_owned()),
            (2, "mesh".to_owned()),
            (2, "governor".to_owned()),
            (7, "bn_tree".to_owned()),
        ]
    );
    // A file `a.rs` (depth 1): both `super` chains reach the crate root.
    assert_eq!(
        names(1),
        vec![
            (2, "bounds".to_owned()),
            (2, "mesh".to_owned()),
            (2, "governor".to_owned()),
            (3, "sibling".to_owned()),
            (7, "bn_tree".to_owned()),
            (12, "validation".to_owned()),
        ]
    );
}

/// The check fails on a bad import: a copy of the library with one module using a lower one.
#[test]
fn a_module_using_a_lower_layer_is_reported_with_its_line() {
    let dir = std::env::temp_dir().join(format!("rapier3d_deform_layers_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("mesh")).unwrap();
    std::fs::write(
        dir.join("lib.rs"),
        "//! Lib.\npub mod error;\npub mod mesh;\npub use error::{DeformError, Result};\npub use rapier3d;\n",
    )
    .unwrap();
    std::fs::write(dir.join("error.rs"), "//! Errors.\nuse crate::Result;\n").unwrap();
    std::fs::write(
        dir.join("mesh/mod.rs"),
        "//! Meshes.\nuse crate::DeformError;\nuse crate::rapier3d::math::Real;\n\nuse crate::{error, shape::DeformableMeshShape};\nfn f() { crate::bn_tree::BnTree::build(); }\n",
    )
    .unwrap();
    let violations = layer_violations(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(violations.len(), 2, "{violations:#?}");
    assert!(violations[0].starts_with("mesh/mod.rs:5: `mesh` (layer 4) uses `crate::shape`"));
    assert!(violations[1].starts_with("mesh/mod.rs:6: `mesh` (layer 4) uses `crate::bn_tree`"));
}
