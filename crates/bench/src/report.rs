//! The record of a run and its three renderings: JSON, markdown tables, PNG plots.
//!
//! A [`Record`] holds everything needed to judge and repeat a run: the machine, each
//! target's binary and version, every server configuration with the settings asked for and
//! the values the server reported back, the parameters, and one [`Row`] per measured cell
//! (with the status counters that moved) or per failure (with the error's text).
//!
//! Plots are drawn with plotters' bitmap backend. Text needs a TrueType font, read at run
//! time (`$MYRIAD_BENCH_FONT` or DejaVu Sans from Debian's `fonts-dejavu-core`) and
//! registered with plotters' `ab_glyph` backend, so the binary has no build-time font
//! dependency.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{anyhow, bail, Context, Result};
use plotters::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::machine::Machine;
use crate::server::{Settings, Target};

/// One server configuration of one target, as asked for and as the server reported it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Configuration {
    pub label: String,
    /// The system variables given to the server.
    pub settings: Settings,
    /// `SHOW GLOBAL VARIABLES` for the same names (and a few more) after start-up: MariaDB
    /// silently lowers some (table_open_cache against the descriptor limit).
    pub effective: BTreeMap<String, String>,
}

/// One target (server) of the run.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct TargetRecord {
    pub target: String,
    pub binary: String,
    /// `<binary> --version`.
    pub binary_version: String,
    /// `SELECT VERSION()` once it answered.
    pub server_version: Option<String>,
    /// Settings the launcher adds to every configuration.
    pub base_options: Vec<String>,
    pub configurations: Vec<Configuration>,
}

/// One measured cell, or one failure.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Row {
    pub target: String,
    /// The configuration (engine, cache size, ...) the cell ran under.
    pub config: String,
    /// What was varied (threads, pass, ...), in display order.
    pub params: Map<String, Value>,
    /// What was measured, in display order.
    pub metrics: Map<String, Value>,
    /// Global status counters that moved during the cell (after - before).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub status_delta: BTreeMap<String, i64>,
    /// The command that produced the figures, where one did (sysbench).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Why the cell has no figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Every measurement of the cell when it was repeated (`--repeat N`), in the order they
    /// ran; the row's own figures are those of the sample with the median TPS.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples: Vec<Sample>,
}

/// One measurement of a repeated cell.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Sample {
    /// Which repetition (0-based) this was.
    pub repetition: u32,
    /// Position of this measurement among all measurements of the run (0-based): shows how
    /// the targets and configurations were interleaved.
    pub sequence: u64,
    /// The 1-minute load average just before the measurement started.
    pub load_average_1m: f64,
    pub metrics: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Row {
    pub fn new(target: Target, config: &str) -> Row {
        Row {
            target: target.name().to_string(),
            config: config.to_string(),
            ..Row::default()
        }
    }

    pub fn param(mut self, name: &str, value: impl Into<Value>) -> Row {
        self.params.insert(name.to_string(), value.into());
        self
    }

    pub fn metric(&mut self, name: &str, value: f64) {
        let value = serde_json::Number::from_f64(value)
            .map(Value::Number)
            .unwrap_or(Value::Null);
        self.metrics.insert(name.to_string(), value);
    }

    /// A counter (a status variable's change, a number of rows): kept as an integer, so
    /// that it prints as one.
    pub fn count(&mut self, name: &str, value: i64) {
        self.metrics.insert(name.to_string(), Value::from(value));
    }

    pub fn get_metric(&self, name: &str) -> Option<f64> {
        self.metrics.get(name).and_then(Value::as_f64)
    }

    pub fn get_param(&self, name: &str) -> Option<&Value> {
        self.params.get(name)
    }

    pub fn failed(mut self, error: &anyhow::Error) -> Row {
        self.error = Some(format!("{error:#}"));
        self
    }
}

/// A markdown table with a title.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Table {
    pub title: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// One line of a plot.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// A line plot of a sweep. The x values are shown as equally spaced categories (thread
/// counts 1, 4, 8, ... 128 or cache sizes 64, 8000, 100000), as the seeds show them.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct PlotSpec {
    /// File name (no directory), ending in `.png`.
    pub file: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
}

/// Everything about one run of one experiment.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Record {
    pub experiment: String,
    pub seed: String,
    pub description: String,
    /// The command line that produced this record.
    pub command: String,
    pub quick: bool,
    pub started_at: String,
    pub duration_s: f64,
    pub machine: Machine,
    pub targets: Vec<TargetRecord>,
    pub parameters: Map<String, Value>,
    pub rows: Vec<Row>,
    /// Summary tables (ratios, the seed's layouts), in display order.
    pub tables: Vec<Table>,
    /// The plots drawn, as file names in the output directory.
    pub plots: Vec<String>,
    pub error_rows: usize,
}

impl Record {
    pub fn target_mut(&mut self, target: Target) -> &mut TargetRecord {
        let name = target.name();
        if let Some(i) = self.targets.iter().position(|t| t.target == name) {
            &mut self.targets[i]
        } else {
            self.targets.push(TargetRecord {
                target: name.to_string(),
                ..TargetRecord::default()
            });
            self.targets.last_mut().expect("just pushed")
        }
    }

    pub fn count_errors(&mut self) -> usize {
        self.error_rows = self.rows.iter().filter(|r| r.error.is_some()).count();
        self.error_rows
    }
}

/// A figure as a DBA reads it: thousands separated, few decimals.
pub fn format_number(value: f64) -> String {
    if !value.is_finite() {
        return value.to_string();
    }
    let magnitude = value.abs();
    if magnitude >= 1000.0 {
        format_count(value.round() as i64)
    } else if magnitude >= 100.0 {
        format!("{value:.0}")
    } else if magnitude >= 10.0 {
        format!("{value:.1}")
    } else if magnitude >= 0.1 || magnitude == 0.0 {
        format!("{value:.2}")
    } else {
        format!("{value:.4}")
    }
}

/// A count as a DBA reads it: an integer, thousands separated (`12,345`, never `12.00`).
pub fn format_count(value: i64) -> String {
    let digits = value.unsigned_abs().to_string();
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    if value < 0 {
        format!("-{grouped}")
    } else {
        grouped
    }
}

/// The cost of one of `n` operations: (`total` - `floor`) / `n`, where `floor` is the same
/// loop without the operation. None when the total is below the floor: the noise between
/// the two loops was larger than the cost, and a negative cost would be a wrong answer.
pub fn cost_above_floor(total: f64, floor: f64, n: u64) -> Option<f64> {
    let above = total - floor;
    (above >= 0.0 && n > 0).then(|| above / n as f64)
}

/// A cost for a table: the figure, or, when the measurement fell below its floor, the
/// floor and the raw figure it is taken from (`below floor: 5.1 vs floor 5.3 us`).
pub fn format_cost(cost: Option<f64>, raw: f64, floor: f64, unit: &str) -> String {
    match cost {
        Some(cost) => format!("{} {unit}", format_number(cost)),
        None => format!(
            "below floor: {} vs floor {} {unit}",
            format_number(raw),
            format_number(floor)
        ),
    }
}

fn format_value(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                format_count(i)
            } else {
                n.as_f64().map(format_number).unwrap_or_default()
            }
        }
        other => other.to_string(),
    }
}

/// Escapes a cell so that it cannot break the markdown table.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// Renders a table as GitHub markdown.
pub fn table_markdown(table: &Table) -> String {
    let mut out = String::new();
    if !table.title.is_empty() {
        let _ = writeln!(out, "**{}**\n", table.title);
    }
    let _ = writeln!(
        out,
        "| {} |",
        table
            .header
            .iter()
            .map(|h| cell(h))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(
        out,
        "|{}|",
        table
            .header
            .iter()
            .map(|_| "---")
            .collect::<Vec<_>>()
            .join("|")
    );
    for row in &table.rows {
        let _ = writeln!(
            out,
            "| {} |",
            row.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | ")
        );
    }
    out
}

/// All rows as one table: target, config, every parameter, every metric, error.
pub fn rows_table(rows: &[Row]) -> Table {
    let mut params: Vec<String> = Vec::new();
    let mut metrics: Vec<String> = Vec::new();
    for row in rows {
        for key in row.params.keys() {
            if !params.contains(key) {
                params.push(key.clone());
            }
        }
        for key in row.metrics.keys() {
            if !metrics.contains(key) {
                metrics.push(key.clone());
            }
        }
    }
    let any_error = rows.iter().any(|r| r.error.is_some());
    let mut header = vec!["target".to_string(), "config".to_string()];
    header.extend(params.iter().cloned());
    header.extend(metrics.iter().cloned());
    if any_error {
        header.push("error".to_string());
    }
    let body = rows
        .iter()
        .map(|row| {
            let mut line = vec![row.target.clone(), row.config.clone()];
            line.extend(
                params
                    .iter()
                    .map(|k| row.params.get(k).map(format_value).unwrap_or_default()),
            );
            line.extend(
                metrics
                    .iter()
                    .map(|k| row.metrics.get(k).map(format_value).unwrap_or_default()),
            );
            if any_error {
                line.push(row.error.clone().unwrap_or_default());
            }
            line
        })
        .collect();
    Table {
        title: "All measurements".to_string(),
        header,
        rows: body,
    }
}

/// The whole record as markdown: a heading, the machine, the summary tables, every row,
/// the plots.
pub fn record_markdown(record: &Record) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## {} ({})\n", record.experiment, record.seed);
    let _ = writeln!(out, "`{}`\n", record.command);
    let m = &record.machine;
    let _ = writeln!(
        out,
        "Machine: {} cores ({}), {:.1} GiB, {}, {}; load average {:.2} at start; run took {:.0} s.\n",
        m.cores,
        m.cpu_model,
        m.memory_bytes as f64 / (1u64 << 30) as f64,
        m.kernel,
        m.os,
        m.load_average_1m_at_start,
        record.duration_s
    );
    for target in &record.targets {
        let _ = writeln!(
            out,
            "- {}: {} (`{}`)",
            target.target,
            target
                .server_version
                .clone()
                .unwrap_or_else(|| target.binary_version.clone()),
            target.binary
        );
    }
    out.push('\n');
    for table in &record.tables {
        out += &table_markdown(table);
        out.push('\n');
    }
    out += &table_markdown(&rows_table(&record.rows));
    out.push('\n');
    for plot in &record.plots {
        let _ = writeln!(out, "![{plot}]({plot})\n");
    }
    if record.error_rows > 0 {
        let _ = writeln!(out, "**{} error row(s).**", record.error_rows);
    }
    out
}

/// Writes `<dir>/<experiment>.json` and `<dir>/<experiment>.md`; returns their paths.
pub fn write_record(dir: &Path, record: &Record) -> Result<(PathBuf, PathBuf)> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let json_path = dir.join(format!("{}.json", record.experiment));
    let json = serde_json::to_string_pretty(record)?;
    std::fs::write(&json_path, json).with_context(|| format!("writing {}", json_path.display()))?;
    let md_path = dir.join(format!("{}.md", record.experiment));
    std::fs::write(&md_path, record_markdown(record))
        .with_context(|| format!("writing {}", md_path.display()))?;
    Ok((json_path, md_path))
}

// ---------------------------------------------------------------------------------------
// Plots.

/// Where the plot font is looked for, in order, after `$MYRIAD_BENCH_FONT`.
pub const FONT_CANDIDATES: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
];

/// The family name the font is registered under.
const FONT_FAMILY: &str = "sans-serif";

fn register_font() -> Result<()> {
    static REGISTERED: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            let explicit = std::env::var("MYRIAD_BENCH_FONT").ok();
            let path = explicit
                .iter()
                .map(String::as_str)
                .chain(FONT_CANDIDATES.iter().copied())
                .find(|p| Path::new(p).is_file())
                .ok_or_else(|| {
                    "no TrueType font for the plots: install one with `apt-get install \
                     fonts-dejavu-core` or set MYRIAD_BENCH_FONT to a .ttf file"
                        .to_string()
                })?;
            let bytes = std::fs::read(path).map_err(|e| format!("reading font {path}: {e}"))?;
            // plotters keeps the font for the life of the process.
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            plotters::style::register_font(FONT_FAMILY, FontStyle::Normal, bytes)
                .map_err(|_| format!("{path} is not a usable TrueType font"))
        })
        .clone()
        .map_err(|e| anyhow!(e))
}

/// The palette of the series, in order: distinct in print and for the colour-blind.
const PALETTE: &[RGBColor] = &[
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(230, 159, 0),
    RGBColor(0, 0, 0),
    RGBColor(240, 228, 66),
];

/// An axis label: whole numbers without decimals ("16", "8,000"), others as figures.
fn axis_text(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        if x.abs() >= 1000.0 {
            format_number(x)
        } else {
            format!("{x:.0}")
        }
    } else {
        format_number(x)
    }
}

/// Draws `spec` as a PNG in `dir`; returns the file's path.
pub fn draw_plot(dir: &Path, spec: &PlotSpec) -> Result<PathBuf> {
    register_font()?;
    let path = dir.join(&spec.file);
    let mut xs: Vec<f64> = spec
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .filter(|x| x.is_finite())
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    if xs.is_empty() {
        bail!("plot {} has no points", spec.file);
    }
    let y_max = spec
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .filter(|y| y.is_finite())
        .fold(0.0f64, f64::max);
    let y_top = if y_max > 0.0 { y_max * 1.12 } else { 1.0 };
    let index_of = |x: f64| xs.iter().position(|v| *v == x);
    let labels: Vec<String> = xs.iter().map(|x| axis_text(*x)).collect();

    let draw = || -> std::result::Result<(), Box<dyn std::error::Error>> {
        let root = BitMapBackend::new(&path, (1000, 620)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(&spec.title, (FONT_FAMILY, 24))
            .margin(16)
            .x_label_area_size(50)
            .y_label_area_size(80)
            .build_cartesian_2d((0..xs.len() as i32 - 1).into_segmented(), 0f64..y_top)?;
        chart
            .configure_mesh()
            .x_desc(spec.x_label.as_str())
            .y_desc(spec.y_label.as_str())
            .label_style((FONT_FAMILY, 15))
            .axis_desc_style((FONT_FAMILY, 17))
            .x_labels(xs.len() + 1)
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) => labels.get(*i as usize).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .y_label_formatter(&|y| axis_text(*y))
            .draw()?;
        for (i, series) in spec.series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let points: Vec<(SegmentValue<i32>, f64)> = series
                .points
                .iter()
                .filter(|p| p.1.is_finite())
                .filter_map(|p| index_of(p.0).map(|ix| (SegmentValue::CenterOf(ix as i32), p.1)))
                .collect();
            chart
                .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?
                .label(series.name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3))
                });
            chart.draw_series(
                points
                    .into_iter()
                    .map(|p| Circle::new(p, 4, color.filled())),
            )?;
        }
        chart
            .configure_series_labels()
            .label_font((FONT_FAMILY, 15))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()?;
        root.present()?;
        Ok(())
    };
    draw().map_err(|e| anyhow!("drawing {}: {e}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_record() -> Record {
        let mut ok = Row::new(Target::Mariadb, "MyISAM").param("table_open_cache", 64);
        ok.metric("tables_per_s", 5966.4);
        ok.status_delta.insert("Opened_tables".into(), 100_000);
        let failed = Row::new(Target::Myriad, "myriad")
            .param("table_open_cache", 64)
            .failed(&anyhow!("myriad exited | before answering"));
        let mut record = Record {
            experiment: "many-tables".into(),
            seed: "000".into(),
            command: "myriad-bench run many-tables --quick".into(),
            rows: vec![ok, failed],
            ..Record::default()
        };
        record.count_errors();
        record
    }

    #[test]
    fn counters_print_as_integers() {
        assert_eq!(format_count(0), "0");
        assert_eq!(format_count(7), "7");
        assert_eq!(format_count(100_000), "100,000");
        assert_eq!(format_count(-1_234), "-1,234");
        let mut row = Row::new(Target::Myriad, "myriad");
        row.count("Opened_tables", 0);
        row.count("Table_open_cache_misses", 12_345);
        row.metric("seconds", 0.0);
        let table = rows_table(&[row.clone()]);
        let at = |name: &str| table.header.iter().position(|h| h == name).unwrap();
        assert_eq!(table.rows[0][at("Opened_tables")], "0");
        assert_eq!(table.rows[0][at("Table_open_cache_misses")], "12,345");
        assert_eq!(
            table.rows[0][at("seconds")],
            "0.00",
            "a measured time keeps decimals"
        );
        // A counter survives the JSON record as an integer and still reads as a number.
        let json = serde_json::to_string(&row).unwrap();
        let back: Row = serde_json::from_str(&json).unwrap();
        assert_eq!(rows_table(&[back]).rows[0][at("Opened_tables")], "0");
        assert_eq!(row.get_metric("Table_open_cache_misses"), Some(12_345.0));
    }

    #[test]
    fn a_cost_below_its_floor_is_never_negative() {
        assert_eq!(cost_above_floor(3.0, 1.0, 4), Some(0.5));
        assert_eq!(cost_above_floor(1.0, 1.0, 4), Some(0.0));
        assert_eq!(cost_above_floor(0.9, 1.0, 4), None);
        assert_eq!(cost_above_floor(3.0, 1.0, 0), None);
        assert_eq!(format_cost(Some(12.34), 20.0, 8.0, "us"), "12.3 us");
        assert_eq!(
            format_cost(cost_above_floor(5.1, 5.3, 1), 5.1, 5.3, "us"),
            "below floor: 5.10 vs floor 5.30 us"
        );
    }

    #[test]
    fn numbers_are_formatted_for_reading() {
        for (number, text) in [
            (5966.4, "5,966"),
            (-1234567.0, "-1,234,567"),
            (273.4, "273"),
            (29.44, "29.4"),
            (1.234, "1.23"),
            (0.0, "0.00"),
            (0.01234, "0.0123"),
        ] {
            assert_eq!(format_number(number), text, "format_number({number})");
        }
    }

    #[test]
    fn axis_labels_drop_needless_decimals() {
        for (number, text) in [(16.0, "16"), (8000.0, "8,000"), (0.0, "0"), (2.5, "2.50")] {
            assert_eq!(axis_text(number), text, "axis_text({number})");
        }
    }

    #[test]
    fn rows_table_has_every_param_metric_and_the_error() {
        let record = sample_record();
        assert_eq!(record.error_rows, 1);
        let md = table_markdown(&rows_table(&record.rows));
        let lines: Vec<&str> = md.lines().collect();
        assert!(
            lines[2].starts_with("| target | config | table_open_cache | tables_per_s | error |")
        );
        assert!(
            lines[4].contains("| mariadb | MyISAM | 64 | 5,966 |"),
            "{md}"
        );
        assert!(
            lines[5].contains("myriad exited \\| before answering"),
            "escaped: {md}"
        );
        assert_eq!(lines.len(), 6);
    }

    #[test]
    fn record_round_trips_through_json_files() {
        let dir = tempfile::tempdir().expect("tempdir");
        let record = sample_record();
        let (json, md) = write_record(dir.path(), &record).expect("written");
        let back: Record =
            serde_json::from_str(&std::fs::read_to_string(&json).expect("json read"))
                .expect("parses");
        assert_eq!(back, record);
        let md = std::fs::read_to_string(md).expect("md read");
        assert!(md.contains("## many-tables (000)"));
        assert!(md.contains("**1 error row(s).**"));
    }

    #[test]
    fn plot_is_a_png_of_real_size() {
        let dir = tempfile::tempdir().expect("tempdir");
        let spec = PlotSpec {
            file: "sweep.png".into(),
            title: "select_random_points, 10 points".into(),
            x_label: "threads".into(),
            y_label: "transactions/s".into(),
            series: vec![
                Series {
                    name: "mariadb segments=0".into(),
                    points: vec![(1.0, 100.0), (4.0, 300.0), (128.0, 250.0)],
                },
                Series {
                    name: "myriad".into(),
                    points: vec![(1.0, 120.0), (4.0, 420.0), (128.0, f64::NAN)],
                },
            ],
        };
        let path = draw_plot(dir.path(), &spec).expect("drawn");
        let bytes = std::fs::read(&path).expect("png read");
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
        assert!(bytes.len() > 10_000, "only {} bytes", bytes.len());
    }

    #[test]
    fn empty_plot_is_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let spec = PlotSpec {
            file: "empty.png".into(),
            ..PlotSpec::default()
        };
        assert!(draw_plot(dir.path(), &spec).is_err());
    }
}
