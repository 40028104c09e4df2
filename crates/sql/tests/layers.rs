//! The shape of the crate, checked from its sources: the stage folders depend one way (a
//! stage may name the stages below it, never one above), no source file passes 800 lines,
//! and no function passes 300 lines. The layering is described in `src/lib.rs`.

use std::path::{Path, PathBuf};

/// The stages from the bottom up; the files at the crate root (errors, values, results,
/// cancellation, the depth guard) are below them all, `lib.rs` above them all.
const STAGES: &[&str] = &[
    "system", "parser", "expr", "catalog", "plan", "session", "exec",
];

/// Upward references that the design keeps on purpose: (file, referenced path prefix, why).
/// Each must still occur, so that the list shrinks as they are removed.
const ALLOWED_UP: &[(&str, &str, &str)] = &[];

const FILE_LINES_MAX: usize = 800;
const FUNCTION_LINES_MAX: usize = 300;

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The stage rank of a file, from its folder: 0 for the files at the crate root, and above
/// every stage for `lib.rs`, which assembles the engine from them.
fn rank_of_file(relative: &str) -> usize {
    if relative == "lib.rs" {
        return STAGES.len() + 1;
    }
    match relative.split_once('/') {
        Some((folder, _)) => rank_of_stage(folder).unwrap_or_else(|| {
            panic!("{relative}: a folder that is not a stage; add it to STAGES")
        }),
        None => 0,
    }
}

fn rank_of_stage(name: &str) -> Option<usize> {
    STAGES.iter().position(|s| *s == name).map(|i| i + 1)
}

/// Every `crate::<stage>...` path in the code (not in comments, not in test modules), with
/// the stage named.
fn stage_paths(text: &str) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with("#[cfg(test)]") {
            break;
        }
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let tail = &rest[at..];
            let end = tail
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(tail.len());
            let path = &tail[..end];
            let stage = path["crate::".len()..].split("::").next().unwrap_or("");
            out.push((n + 1, stage.to_string(), path.to_string()));
            rest = &tail["crate::".len()..];
        }
    }
    out
}

/// Functions and their lengths in lines, found by rustfmt's layout: a `fn` line and the
/// first later line that closes at the same indentation.
fn function_lengths(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let sig = [
            "pub fn ",
            "pub(crate) fn ",
            "fn ",
            "pub(super) fn ",
            "const fn ",
        ]
        .iter()
        .find_map(|p| trimmed.strip_prefix(p));
        let Some(sig) = sig else { continue };
        if line.trim_end().ends_with(';') || line.trim_end().ends_with('}') {
            continue;
        }
        let name: String = sig
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let close = format!("{indent}}}");
        if let Some(end) = lines[i + 1..].iter().position(|l| *l == close) {
            out.push((name, i + 1, end + 2));
        }
    }
    out
}

fn relative_sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&root)
                .expect("under src")
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(&p).expect("read source"))
        })
        .collect()
}

#[test]
fn stages_depend_downward_only() {
    let mut used = vec![false; ALLOWED_UP.len()];
    let mut wrong = Vec::new();
    for (rel, text) in relative_sources() {
        let rank = rank_of_file(&rel);
        for (line, stage, path) in stage_paths(&text) {
            let Some(target) = rank_of_stage(&stage) else {
                continue;
            };
            if target <= rank {
                continue;
            }
            let allowed = ALLOWED_UP
                .iter()
                .position(|(file, prefix, _)| rel.starts_with(file) && path.starts_with(prefix));
            match allowed {
                Some(i) => used[i] = true,
                None => wrong.push(format!("src/{rel}:{line}: {path} points up the stages")),
            }
        }
    }
    assert!(wrong.is_empty(), "upward references:\n{}", wrong.join("\n"));
    for (i, (file, prefix, why)) in ALLOWED_UP.iter().enumerate() {
        assert!(
            used[i],
            "ALLOWED_UP ({file}, {prefix}: {why}) no longer occurs: remove it from the list"
        );
    }
}

#[test]
fn files_and_functions_stay_short() {
    let mut long = Vec::new();
    for (rel, text) in relative_sources() {
        let lines = text.lines().count();
        if lines > FILE_LINES_MAX {
            long.push(format!(
                "src/{rel}: {lines} lines (at most {FILE_LINES_MAX})"
            ));
        }
        for (name, start, len) in function_lengths(&text) {
            if len > FUNCTION_LINES_MAX {
                long.push(format!(
                    "src/{rel}:{start}: fn {name} is {len} lines (at most {FUNCTION_LINES_MAX})"
                ));
            }
        }
    }
    assert!(long.is_empty(), "too long:\n{}", long.join("\n"));
}

#[test]
fn the_checks_see_what_they_check() {
    // The scanners themselves: an upward path, a comment that must be ignored, a long function.
    let paths = stage_paths("use crate::exec::read; // crate::session\nfn f() {}\n");
    assert_eq!(
        paths,
        vec![(1, "exec".to_string(), "crate::exec::read".to_string())]
    );
    let body = format!("fn big() {{\n{}}}\n", "    x();\n".repeat(400));
    assert_eq!(function_lengths(&body), vec![("big".to_string(), 1, 402)]);
    assert!(rank_of_stage("exec") > rank_of_stage("session"));
    assert!(rank_of_file("lib.rs") > rank_of_file("exec/mod.rs"));
    assert_eq!(rank_of_file("error.rs"), 0);
}
