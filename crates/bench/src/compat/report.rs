//! The compat run's record: totals per class (clean and follow-on), whole-file passes, the
//! commonest shapes of each class, every difference; as JSON and as markdown; and the
//! baseline of agreeing statements per file that CI holds the runner to.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use super::outcome::{abbreviate, Class};
use super::replay::{Difference, FileResult, Stop};
use super::CompatOptions;

/// Shapes listed per class in the markdown.
const SHAPES_SHOWN: usize = 12;

/// Statements per class over all files.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Totals {
    pub statements: usize,
    pub clean: BTreeMap<Class, usize>,
    pub follow_on: BTreeMap<Class, usize>,
    pub files: usize,
    /// Files with statements, every one agreeing, run to their end (or `exit`).
    pub files_passed: usize,
    pub files_stopped: BTreeMap<String, usize>,
    pub harness_skipped: usize,
}

/// A shape of difference: how many statements share it, and one of them.
#[derive(Debug, Clone, Serialize)]
pub struct Shape {
    pub shape: String,
    pub count: usize,
    pub example: String,
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub command: String,
    pub mariadb_version: String,
    pub myriad_version: String,
    pub myriad_restarts: usize,
    pub totals: Totals,
    /// Clean differences only, by class name.
    pub shapes: BTreeMap<String, Vec<Shape>>,
    pub files: Vec<FileResult>,
}

impl Report {
    pub fn new(
        opts: &CompatOptions,
        versions: (String, String),
        files: Vec<FileResult>,
        myriad_restarts: usize,
    ) -> Report {
        let mut totals = Totals::default();
        for file in &files {
            totals.files += 1;
            totals.statements += file.statements();
            totals.harness_skipped += file.harness_skipped;
            for (class, n) in &file.clean {
                *totals.clean.entry(*class).or_default() += n;
            }
            for (class, n) in &file.follow_on {
                *totals.follow_on.entry(*class).or_default() += n;
            }
            if passed(file) {
                totals.files_passed += 1;
            }
            if let Some(stop) = &file.stop {
                *totals.files_stopped.entry(stop_kind(stop)).or_default() += 1;
            }
        }
        Report {
            command: opts.command.clone(),
            mariadb_version: versions.0,
            myriad_version: versions.1,
            myriad_restarts,
            totals,
            shapes: shapes(&files),
            files,
        }
    }

    pub fn count(&self, class: Class) -> usize {
        self.totals.clean.get(&class).copied().unwrap_or(0)
            + self.totals.follow_on.get(&class).copied().unwrap_or(0)
    }

    /// The totals, whole-file passes and top shapes as markdown.
    pub fn markdown(&self) -> String {
        let t = &self.totals;
        let mut md = String::new();
        let pct = |n: usize| 100.0 * n as f64 / t.statements.max(1) as f64;
        let _ = writeln!(md, "# MariaDB's test suite replayed against myriad\n");
        let _ = writeln!(
            md,
            "MariaDB `{}`, myriad `{}`; command: `{}`\n",
            self.mariadb_version, self.myriad_version, self.command
        );
        let _ = writeln!(
            md,
            "{} statements in {} files; {} files agree on every statement. Statement \
             agreement: **{:.1}%**.\n",
            t.statements,
            t.files,
            t.files_passed,
            pct(self.count(Class::Agree))
        );
        let _ = writeln!(
            md,
            "| class | clean | follow-on | share |\n|---|---:|---:|---:|"
        );
        for class in Class::ALL {
            let clean = t.clean.get(&class).copied().unwrap_or(0);
            let follow = t.follow_on.get(&class).copied().unwrap_or(0);
            let _ = writeln!(
                md,
                "| {} | {clean} | {follow} | {:.1}% |",
                class.name(),
                pct(clean + follow)
            );
        }
        let _ = writeln!(
            md,
            "\nFiles stopped early: {}. Harness commands not emulated (exec, files, \
             replication): {}. myriad restarts: {}.\n",
            if t.files_stopped.is_empty() {
                "none".to_string()
            } else {
                t.files_stopped
                    .iter()
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            },
            t.harness_skipped,
            self.myriad_restarts
        );
        for (class, shapes) in &self.shapes {
            let _ = writeln!(md, "## {class}: commonest shapes (clean context)\n");
            let _ = writeln!(md, "| count | shape | example |\n|---:|---|---|");
            for shape in shapes.iter().take(SHAPES_SHOWN) {
                let _ = writeln!(
                    md,
                    "| {} | {} | {} |",
                    shape.count,
                    cell(&shape.shape),
                    cell(&shape.example)
                );
            }
            md.push('\n');
        }
        md
    }

    /// Writes `compat.json` and `compat.md` under `dir`.
    pub fn write(&self, dir: &Path) -> Result<(PathBuf, PathBuf)> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let json = dir.join("compat.json");
        let md = dir.join("compat.md");
        std::fs::write(&json, serde_json::to_vec_pretty(self)?)
            .with_context(|| format!("writing {}", json.display()))?;
        std::fs::write(&md, self.markdown())
            .with_context(|| format!("writing {}", md.display()))?;
        Ok((json, md))
    }

    /// The baseline text: `name agreed statements` per file.
    pub fn baseline(&self) -> String {
        let mut text = String::from(
            "# Statements each MariaDB test agrees on with myriad (myriad-bench compat \
             --write-baseline); a run agreeing on fewer fails.\n",
        );
        for file in &self.files {
            let _ = writeln!(
                text,
                "{} {} {}",
                file.name,
                file.agreed(),
                file.statements()
            );
        }
        text
    }

    /// What falls short of `baseline`: files agreeing on fewer statements than listed, and
    /// any hang or crash. Empty when the run holds.
    pub fn regressions(&self, baseline: &str) -> Vec<String> {
        let mut problems = Vec::new();
        for class in Class::ALL.into_iter().filter(|c| super::fatal(*c)) {
            for file in &self.files {
                for d in file.differences.iter().filter(|d| d.class == class) {
                    problems.push(format!(
                        "{} at {}:{}: {}",
                        class.name(),
                        d.file,
                        d.line,
                        abbreviate(&d.sql, 120)
                    ));
                }
            }
        }
        for line in baseline.lines().filter(|l| !l.starts_with('#')) {
            let mut words = line.split_whitespace();
            let (Some(name), Some(agreed)) = (words.next(), words.next()) else {
                continue;
            };
            let Ok(agreed) = agreed.parse::<usize>() else {
                continue;
            };
            match self.files.iter().find(|f| f.name == name) {
                Some(file) if file.agreed() < agreed => problems.push(format!(
                    "{name}: {} statements agree, the baseline has {agreed}",
                    file.agreed()
                )),
                _ => {}
            }
        }
        problems
    }
}

fn passed(file: &FileResult) -> bool {
    file.statements() > 0
        && file.agreed() == file.statements()
        && matches!(file.stop, None | Some(Stop::Exit))
}

fn stop_kind(stop: &Stop) -> String {
    match stop {
        Stop::Exit => "exit",
        Stop::Skip(_) => "skip",
        Stop::Die(_) => "die",
        Stop::Myriad(_) => "myriad failed",
        Stop::Reference(_) => "MariaDB failed",
        Stop::Harness(_) => "server restart",
        Stop::TimeLimit => "time limit",
    }
    .to_string()
}

/// Groups the clean differences of each class by shape, commonest first.
fn shapes(files: &[FileResult]) -> BTreeMap<String, Vec<Shape>> {
    let mut groups: BTreeMap<(Class, String), (usize, String)> = BTreeMap::new();
    for d in files
        .iter()
        .flat_map(|f| &f.differences)
        .filter(|d| d.clean)
    {
        let entry = groups.entry((d.class, shape_of(d))).or_insert_with(|| {
            (
                0,
                format!("{}:{} `{}`", d.file, d.line, abbreviate(&d.sql, 100)),
            )
        });
        entry.0 += 1;
    }
    let mut out: BTreeMap<String, Vec<Shape>> = BTreeMap::new();
    for ((class, shape), (count, example)) in groups {
        out.entry(class.name().to_string())
            .or_default()
            .push(Shape {
                shape,
                count,
                example,
            });
    }
    for list in out.values_mut() {
        list.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.shape.cmp(&b.shape)));
    }
    out
}

/// A difference's shape: myriad's error (code and message without names or numbers) for
/// errors other than a parse error, else the statement's first words.
pub fn shape_of(d: &Difference) -> String {
    match &d.myriad_error {
        // What is not supported is the shape itself.
        Some((1235, message)) => format!("1235 {}", abbreviate(message, 120)),
        Some((code, message)) if *code != 1064 => format!("{code} {}", generalize(message)),
        Some((code, _)) => format!("{code} {}", head(&d.sql)),
        None => head(&d.sql),
    }
}

/// The statement's first two words in upper case.
fn head(sql: &str) -> String {
    sql.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .take(2)
        .map(|w| w.to_ascii_uppercase())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` with quoted parts as `'?'` and numbers as `N`.
fn generalize(text: &str) -> String {
    let mut out = String::new();
    let mut quote: Option<char> = None;
    let mut last_digit = false;
    let mut after_word = false;
    for c in text.chars() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
                out.push(q);
            }
            continue;
        }
        if matches!(c, '\'' | '`' | '"') && !after_word {
            quote = Some(c);
            out.push(c);
            out.push('?');
            continue;
        }
        if c.is_ascii_digit() && (last_digit || !after_word) {
            if !last_digit {
                out.push('N');
            }
            last_digit = true;
            continue;
        }
        last_digit = false;
        after_word = c.is_alphanumeric();
        out.push(c);
    }
    abbreviate(&out, 120)
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn difference(sql: &str, error: Option<(u16, &str)>) -> Difference {
        Difference {
            file: "t".into(),
            line: 1,
            class: Class::Unsupported,
            clean: true,
            sql: sql.into(),
            mariadb: String::new(),
            myriad: String::new(),
            myriad_error: error.map(|(c, m)| (c, m.to_string())),
        }
    }

    #[test]
    fn shapes_group_by_error_or_statement_head() {
        assert_eq!(
            shape_of(&difference(
                "select 1",
                Some((1235, "This version doesn't yet support 'WINDOW' at 12"))
            )),
            "1235 This version doesn't yet support 'WINDOW' at 12"
        );
        assert_eq!(
            shape_of(&difference(
                "drop table t9",
                Some((1051, "Unknown table 'test.t9'"))
            )),
            "1051 Unknown table '?'"
        );
        assert_eq!(
            shape_of(&difference("create procedure p()", Some((1064, "near x")))),
            "1064 CREATE PROCEDURE"
        );
        assert_eq!(shape_of(&difference("select(1)", None)), "SELECT 1");
        assert_eq!(
            shape_of(&difference("select * from t", None)),
            "SELECT FROM"
        );
        assert_eq!(
            generalize("table `t1` row 12 isn't"),
            "table `?` row N isn't"
        );
    }
}
