//! The harness's layers (ARCHITECTURE.md, "Layers"): each module of `src/` names only modules
//! on its own layer or below, and no file names another that names it back (within a module,
//! leaving aside a file and the `mod.rs` above it, which declares it). Read from the sources as
//! they are, comments left out, so a new `use crate::…` upward fails here, with the file.

// A test crate: a failed unwrap is a failed test, with its place.
#![allow(clippy::unwrap_used)]

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The harness's modules, lowest layer first. A module may name its own layer and those below.
const LAYERS: &[&[&str]] = &[
    &["error", "human", "toml_words", "trace", "usage"],
    &["billing", "scenario"],
    &["agent", "metrics"],
    &["sim"],
    &["settings"],
    &["row", "run", "settings_words"],
    &["import", "seeds", "verdict"],
    &["report", "tune"],
    &["gate", "http", "plot", "sweep"],
    &["engine"],
];

/// What the crate's root re-exports, by the module it comes from (`crate::Error`).
const ROOT_NAMES: &[(&str, &str)] = &[("Error", "error"), ("RunSettings", "settings")];

/// The layer of `module`, if it has one.
fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// `text` without its comments (line, doc and block comments); string literals are kept, so a
/// message that spells `crate::x` counts, which errs on the side of refusing.
fn code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        if rest.starts_with("//") {
            rest = rest.find('\n').map_or("", |i| &rest[i..]);
        } else if rest.starts_with("/*") {
            rest = rest.find("*/").map_or("", |i| &rest[i + 2..]);
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// Whether `c` can be part of an identifier.
fn ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths a use tree or an inline path starting at `s` names, each as its segments
/// (`a::{b::C, d}` gives `[a, b, C]` and `[a, d]`); stops at the first thing not a path.
fn paths(s: &str) -> Vec<Vec<String>> {
    fn skip_space(s: &str, at: &mut usize) {
        *at += s[*at..].len() - s[*at..].trim_start().len();
    }
    fn tree(s: &str, at: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
        let mut segments = prefix;
        loop {
            skip_space(s, at);
            if s[*at..].starts_with('{') {
                *at += 1;
                loop {
                    tree(s, at, segments.clone(), out);
                    skip_space(s, at);
                    if s[*at..].starts_with(',') {
                        *at += 1;
                        skip_space(s, at);
                    }
                    if s[*at..].starts_with('}') {
                        *at += 1;
                        return;
                    }
                    if *at >= s.len() || !s[*at..].starts_with(ident_char) {
                        return;
                    }
                }
            }
            let len = s[*at..].find(|c| !ident_char(c)).unwrap_or(s.len() - *at);
            if len == 0 {
                break;
            }
            segments.push(s[*at..*at + len].to_owned());
            *at += len;
            if s[*at..].starts_with("::") {
                *at += 2;
            } else {
                break;
            }
        }
        if !segments.is_empty() {
            out.push(segments);
        }
    }
    let mut out = Vec::new();
    tree(s, &mut 0, Vec::new(), &mut out);
    out
}

/// Every path in `code` that starts with `root::` (`crate`, `super`, `self`), the root not part
/// of a longer name (`ctxbench_crate::` is not `crate::`), with its repeats of `super::` counted.
fn rooted(code: &str, root: &str) -> Vec<(usize, Vec<String>)> {
    let needle = format!("{root}::");
    let mut found = Vec::new();
    for (i, _) in code.match_indices(&needle) {
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| ident_char(c) || c == ':') {
            continue;
        }
        let mut rest = &code[i + needle.len()..];
        let mut ups = 1;
        while root == "super" && rest.starts_with("super::") {
            rest = &rest["super::".len()..];
            ups += 1;
        }
        found.extend(paths(rest).into_iter().map(|p| (ups, p)));
    }
    found
}

/// The top-level modules `code` names through `crate::`, root re-exports mapped to their module.
fn named_modules(code: &str) -> BTreeSet<String> {
    rooted(code, "crate")
        .into_iter()
        .filter_map(|(_, p)| p.into_iter().next())
        .map(|first| {
            ROOT_NAMES
                .iter()
                .find(|(name, _)| *name == first)
                .map_or(first, |(_, module)| (*module).to_owned())
        })
        .collect()
}

/// The modules `module` names that are on a higher layer than its own.
fn upward(module: &str, named: &BTreeSet<String>) -> Vec<String> {
    let own = layer(module).unwrap_or_else(|| panic!("{module} is in no layer: add it to LAYERS"));
    named
        .iter()
        .filter(|n| layer(n).unwrap_or_else(|| panic!("{n} is in no layer: add it to LAYERS")) > own)
        .cloned()
        .collect()
}

/// The harness's sources: every `.rs` file under `src/`, sorted.
fn sources() -> Vec<PathBuf> {
    common::rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

/// A file's module path below the crate root (`src/http/serve/mod.rs` is `[http, serve]`).
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let mut parts: Vec<String> = file
        .strip_prefix(src)
        .unwrap()
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// Each file's module path, with the files (by module path) it names besides its own ancestors
/// and descendants: `crate::a::b`, `super::b`, `self::b`, resolved to the longest module that is
/// a file.
fn file_edges(files: &BTreeMap<Vec<String>, String>) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let mut edges = BTreeMap::new();
    for (me, text) in files {
        let code = code(text);
        // Where `self::` and `super::` start from: a `mod.rs` is its own module, a file too.
        let here: Vec<String> = me.clone();
        let mut named = BTreeSet::new();
        let mut candidates = Vec::new();
        for (_, p) in rooted(&code, "crate") {
            candidates.push(p);
        }
        for (_, p) in rooted(&code, "self") {
            candidates.push(here.iter().cloned().chain(p).collect());
        }
        for (ups, p) in rooted(&code, "super") {
            let base = &here[..here.len().saturating_sub(ups)];
            candidates.push(base.iter().cloned().chain(p).collect());
        }
        for full in candidates {
            let target = (0..=full.len())
                .rev()
                .map(|n| full[..n].to_vec())
                .find(|m| files.contains_key(m))
                .unwrap();
            let related = target.starts_with(me) || me.starts_with(&target);
            if !related {
                named.insert(target);
            }
        }
        edges.insert(me.clone(), named);
    }
    edges
}

/// A circle among `edges`, as the files in it, if there is one.
fn circle(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Option<Vec<Vec<String>>> {
    fn visit<'a>(
        at: &'a Vec<String>,
        edges: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        state: &mut BTreeMap<&'a Vec<String>, bool>,
        stack: &mut Vec<&'a Vec<String>>,
    ) -> Option<Vec<Vec<String>>> {
        match state.get(at) {
            Some(true) => return None,
            Some(false) => {
                let from = stack.iter().position(|f| *f == at).unwrap();
                return Some(stack[from..].iter().map(|f| (*f).clone()).collect());
            }
            None => {}
        }
        state.insert(at, false);
        stack.push(at);
        for next in edges.get(at).into_iter().flatten() {
            if let Some(found) = visit(next, edges, state, stack) {
                return Some(found);
            }
        }
        stack.pop();
        state.insert(at, true);
        None
    }
    let mut state = BTreeMap::new();
    edges
        .keys()
        .find_map(|start| visit(start, edges, &mut state, &mut Vec::new()))
}

#[test]
fn no_module_names_a_module_on_a_higher_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut wrong = Vec::new();
    let mut modules = BTreeSet::new();
    for file in sources() {
        let path = module_path(&src, &file);
        let Some(module) = path.first() else { continue };
        modules.insert(module.clone());
        let named = named_modules(&code(&std::fs::read_to_string(&file).unwrap()));
        let named: BTreeSet<String> = named.into_iter().filter(|n| n != module).collect();
        for up in upward(module, &named) {
            wrong.push(format!("{}: {module} names {up}", file.display()));
        }
    }
    assert!(wrong.is_empty(), "imports from a higher layer:\n{}", wrong.join("\n"));
    let listed: BTreeSet<String> = LAYERS.iter().flat_map(|l| l.iter().map(|m| (*m).to_owned())).collect();
    assert_eq!(listed, modules, "LAYERS lists exactly the modules of src/");
}

#[test]
fn no_file_names_a_file_that_names_it_back() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files: BTreeMap<Vec<String>, String> = sources()
        .iter()
        .map(|f| (module_path(&src, f), std::fs::read_to_string(f).unwrap()))
        .collect();
    let edges = file_edges(&files);
    assert!(
        edges.values().map(BTreeSet::len).sum::<usize>() > 100,
        "the scanner finds the imports"
    );
    let found = circle(&edges).map(|c| c.iter().map(|m| m.join("::")).collect::<Vec<_>>());
    assert_eq!(found, None, "a circle of imports between files");
}

#[test]
fn the_scanner_sees_paths_and_not_comments() {
    let text = "//! crate::gate in a doc comment\n/// [`crate::plot`]\n/* crate::http */\n\
                use crate::{engine::run_jobs, trace::{CallRecord, Outcome}};\n\
                use ctxbench_crate::x;\nfn f() { crate::Error::Io; let _ = crate::verdict::choose; }\n";
    let named = named_modules(&code(text));
    let want: BTreeSet<String> = ["engine", "error", "trace", "verdict"].map(String::from).into();
    assert_eq!(named, want);
    assert_eq!(upward("metrics", &named), ["engine", "verdict"]);
    assert!(upward("engine", &named).is_empty());
    assert_eq!(
        paths("a::{b::C, d::{e, f}}, g"),
        [vec!["a", "b", "C"], vec!["a", "d", "e"], vec!["a", "d", "f"]]
    );
}

#[test]
fn the_circle_check_finds_a_circle() {
    let file = |p: &[&str], text: &str| (p.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>(), text.to_owned());
    let files: BTreeMap<Vec<String>, String> = [
        file(&[], "mod m;"),
        file(&["m"], "mod a; mod b; use self::a::X;"),
        file(&["m", "a"], "use super::b::Y; use super::Z;"),
        file(&["m", "b"], "fn f() { crate::m::a::g(); }"),
    ]
    .into();
    let edges = file_edges(&files);
    let found = circle(&edges).unwrap();
    assert_eq!(found.len(), 2, "{found:?}");
    let mut apart = files.clone();
    apart.insert(file(&["m", "b"], "").0, String::new());
    assert_eq!(circle(&file_edges(&apart)), None);
}
