//! `myriad-bench`: runs the seed experiments against myriad and MariaDB side by side.
//!
//! See the crate documentation of `myriad_bench` and docs/benchmarks.md.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use myriad_bench::compat;
use myriad_bench::experiments::{self, Engine, Options, EXPERIMENTS};
use myriad_bench::report;
use myriad_bench::server::{self, Target};

/// Exit status when the run finished but some cells failed (error rows).
const EXIT_ERROR_ROWS: u8 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "myriad-bench",
    version,
    about = "Repeat the field measurements behind myriad (the seeds) against myriad and MariaDB in one run.",
    long_about = "Repeat the field measurements behind myriad (the seeds) against myriad and MariaDB in one run.\n\n\
        Each run starts its own servers: a fresh datadir in a temporary directory, a free port on \
        127.0.0.1, the same settings for both. MariaDB comes from Debian's mariadb-server package \
        (mariadbd and mariadb-install-db); myriad is the `myriad` binary next to this one (or \
        --myriad-bin). Workloads run through sysbench (Debian package sysbench) and a Rust client \
        loop. The servers are stopped at the end, on errors and on Ctrl-C.\n\n\
        Results: <out>/<experiment>.json (everything: machine, versions, settings, every figure, \
        the status counters that moved), <out>/<experiment>.md (the tables, also printed at the \
        end) and PNG plots in <out>. The exit status is 0 when every cell was measured, 2 when \
        some cells failed (they are error rows with the error text), 1 on a usage error.\n\n\
        Examples:\n  myriad-bench list\n  myriad-bench run query-cache --target mariadb --quick\n  \
        myriad-bench run many-tables --target both --tables 100000 --out results/"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the experiments and what each measures.
    List,
    /// Run one experiment (or `all`) and write its JSON record, markdown table and plots.
    Run(Box<RunArgs>),
    /// Replay MariaDB's regression tests (package mariadb-test) statement by statement
    /// against MariaDB and myriad and classify every difference.
    #[command(long_about = COMPAT_ABOUT)]
    Compat(CompatArgs),
}

const COMPAT_ABOUT: &str = "Replay MariaDB's regression tests statement by statement against MariaDB and myriad, and classify every difference.\n\n\
    The tests are the mysqltest scripts of Debian's mariadb-test package \
    (/usr/share/mysql/mysql-test/main). One MariaDB and one myriad are started for the run \
    (utf8mb4 on both); every statement goes to both, and myriad's answer is classified against \
    MariaDB's: agree, row order, unsupported (myriad errs), wrong answer (both succeed, results \
    differ), accepts invalid (only MariaDB errs), wrong error code, hang, lost connection, \
    crash. A difference after an earlier state-changing divergence in the same file counts as \
    follow-on. Commands the runner does not emulate (exec, files, replication, restarts) are \
    skipped and counted.\n\n\
    Writes <out>/compat.json (every file and difference) and <out>/compat.md (totals, whole-file \
    passes, commonest shapes per class). Exit status: 0, or 2 when --baseline finds a file \
    agreeing on fewer statements than before, a hang or a crash.\n\n\
    Examples:\n  myriad-bench compat --quick\n  myriad-bench compat func_str 'type_*'\n  \
    myriad-bench compat --out results/compat   (every test: about 25 minutes on 2 cores)";

#[derive(clap::Args, Debug)]
struct CompatArgs {
    /// Tests to replay: names (func_str) or prefixes ending in * ('func_*'); none: every
    /// test in main/ (or the quick list with --quick).
    tests: Vec<String>,
    /// Replay the quick list: SQL behaviour users meet first, a few minutes in all.
    #[arg(long)]
    quick: bool,
    /// The mysql-test directory, holding main/ and include/.
    #[arg(
        long,
        value_name = "DIR",
        default_value = "/usr/share/mysql/mysql-test"
    )]
    suite: PathBuf,
    /// Directory for compat.json and compat.md.
    #[arg(long, default_value = "bench-results")]
    out: PathBuf,
    #[command(flatten)]
    servers: ServerPaths,
    /// Seconds a statement may run before it counts as a hang.
    #[arg(long, value_name = "SECONDS", default_value_t = 20)]
    statement_limit: u64,
    /// Seconds one test file may run before the rest of it is left out.
    #[arg(long, value_name = "SECONDS", default_value_t = 120)]
    file_limit: u64,
    /// Fail (exit 2) when a test agrees on fewer statements than this file lists, or
    /// anything hangs or crashes.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Write the statements each test agrees on to FILE, for --baseline.
    #[arg(long, value_name = "FILE")]
    write_baseline: Option<PathBuf>,
}

/// Where the servers' files come from and go: shared by `run` and `compat`.
#[derive(clap::Args, Debug)]
struct ServerPaths {
    /// Where the temporary datadirs go (100,000 InnoDB tables take several GB).
    #[arg(long, value_name = "DIR")]
    work_dir: Option<PathBuf>,
    /// The myriad server binary (default: `myriad` next to this executable, or $MYRIAD_BIN).
    #[arg(long, value_name = "PATH")]
    myriad_bin: Option<PathBuf>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum TargetChoice {
    Myriad,
    Mariadb,
    Both,
}

#[derive(clap::Args, Debug)]
struct RunArgs {
    /// The experiment (see `myriad-bench list`), or `all` for every one in turn.
    experiment: String,
    /// Which server(s) to measure.
    #[arg(long, value_enum, default_value = "both")]
    target: TargetChoice,
    /// A small version of the experiment that finishes in under 2 minutes per target
    /// (few tables and rows, short sysbench runs, two thread counts).
    #[arg(long)]
    quick: bool,
    /// Directory for the JSON record, the markdown table and the plots.
    #[arg(long, default_value = "bench-results")]
    out: PathBuf,
    #[command(flatten)]
    servers: ServerPaths,
    /// Number of tables for many-tables and open-files (default 100000; quick 1000).
    #[arg(long, value_name = "N")]
    tables: Option<u64>,
    /// Rows per sysbench table (default 1000000, 100000 for table-cache-instances).
    #[arg(long, value_name = "N")]
    rows: Option<u64>,
    /// Seconds per sysbench measurement.
    #[arg(long, value_name = "SECONDS")]
    time: Option<u64>,
    /// Thread counts for the sysbench sweeps, e.g. --threads 1,16,100.
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    threads: Option<Vec<u32>>,
    /// Points per select_random_points statement for key-cache, e.g. --points 10
    /// (default 10,50,100; quick: 10).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    points: Option<Vec<u32>>,
    /// MariaDB storage engines for many-tables and open-files, e.g. --engine myisam.
    #[arg(
        long = "engine",
        value_enum,
        value_delimiter = ',',
        value_name = "ENGINE"
    )]
    engines: Option<Vec<Engine>>,
    /// A system variable for every server configuration, repeatable; it replaces the
    /// experiment's value of the same name, e.g. --set table_definition_cache=8000.
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_setting)]
    settings: Vec<(String, String)>,
    /// Measure every sysbench cell N times, in rotation with the other cells, targets and
    /// configurations; tables show the median, the JSON record keeps every sample.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// Run the servers on these CPUs only (a `taskset -c` list, e.g. 0 or 0-7); with
    /// --client-cpus the load generator stops taking the servers' cores (needs taskset,
    /// util-linux).
    #[arg(long, value_name = "LIST", value_parser = myriad_bench::pinning::parse_cpu_list)]
    server_cpus: Option<String>,
    /// Run sysbench on these CPUs only (a `taskset -c` list, e.g. 1 or 8-15).
    #[arg(long, value_name = "LIST", value_parser = myriad_bench::pinning::parse_cpu_list)]
    client_cpus: Option<String>,
    /// sysbench connects to both servers through their unix sockets instead of TCP on
    /// 127.0.0.1 (as local clients usually do; loopback TCP costs the server more kernel
    /// time per statement).
    #[arg(long)]
    client_socket: bool,
}

fn parse_setting(text: &str) -> Result<(String, String), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` is not NAME=VALUE"))?;
    let name = name.trim().replace('-', "_");
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!("`{name}` is not a system variable name"));
    }
    Ok((name, value.trim().to_string()))
}

fn list() {
    println!("Experiments (myriad-bench run <name> [--quick] [--target myriad|mariadb|both]):\n");
    for e in EXPERIMENTS {
        println!("  {:<24} seed {}: {}", e.name, e.seed, e.summary);
        let mut line = String::new();
        for word in e.measures.split_whitespace() {
            if line.len() + word.len() > 70 {
                println!("  {:<24} {}", "", line.trim_end());
                line.clear();
            }
            line.push_str(word);
            line.push(' ');
        }
        if !line.is_empty() {
            println!("  {:<24} {}", "", line.trim_end());
        }
        println!();
    }
}

fn run(args: RunArgs) -> ExitCode {
    let chosen: Vec<&experiments::Experiment> = if args.experiment == "all" {
        EXPERIMENTS.iter().collect()
    } else {
        match experiments::find(&args.experiment) {
            Some(e) => vec![e],
            None => {
                eprintln!(
                    "myriad-bench: unknown experiment `{}`; known: {}, all",
                    args.experiment,
                    EXPERIMENTS
                        .iter()
                        .map(|e| e.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                return ExitCode::FAILURE;
            }
        }
    };
    if let Err(e) = server::install_interrupt_handler() {
        eprintln!("myriad-bench: {e:#}");
        return ExitCode::FAILURE;
    }
    let targets = match args.target {
        TargetChoice::Myriad => vec![Target::Myriad],
        TargetChoice::Mariadb => vec![Target::Mariadb],
        TargetChoice::Both => vec![Target::Myriad, Target::Mariadb],
    };
    myriad_bench::pinning::set(myriad_bench::pinning::Pinning {
        server: args.server_cpus.clone(),
        client: args.client_cpus.clone(),
    });
    let opts = Options {
        targets,
        quick: args.quick,
        out_dir: args.out.clone(),
        work_dir: args
            .servers
            .work_dir
            .clone()
            .unwrap_or_else(std::env::temp_dir),
        myriad_bin: args.servers.myriad_bin.clone(),
        tables: args.tables,
        rows: args.rows,
        time_s: args.time,
        threads: args.threads.clone(),
        points: args.points.clone(),
        engines: args.engines.clone(),
        extra_settings: args.settings.clone(),
        repeat: args.repeat,
        client_socket: args.client_socket,
        command: std::env::args().collect::<Vec<_>>().join(" "),
    };
    let mut any_errors = false;
    for experiment in chosen {
        let record = experiments::run(experiment, &opts);
        println!("{}", report::record_markdown(&record));
        match report::write_record(&opts.out_dir, &record) {
            Ok((json, md)) => {
                eprintln!(
                    "myriad-bench: wrote {} and {}",
                    json.display(),
                    md.display()
                );
                for plot in &record.plots {
                    eprintln!("myriad-bench: wrote {}", opts.out_dir.join(plot).display());
                }
            }
            Err(e) => {
                eprintln!("myriad-bench: {e:#}");
                return ExitCode::FAILURE;
            }
        }
        if record.error_rows > 0 {
            eprintln!(
                "myriad-bench: {}: {} error row(s)",
                record.experiment, record.error_rows
            );
            any_errors = true;
        }
    }
    if any_errors {
        ExitCode::from(EXIT_ERROR_ROWS)
    } else {
        ExitCode::SUCCESS
    }
}

fn compat(args: CompatArgs) -> ExitCode {
    if let Err(e) = server::install_interrupt_handler() {
        eprintln!("myriad-bench: {e:#}");
        return ExitCode::FAILURE;
    }
    let opts = compat::CompatOptions {
        suite: args.suite,
        tests: args.tests,
        quick: args.quick,
        out_dir: args.out,
        work_dir: args.servers.work_dir.unwrap_or_else(std::env::temp_dir),
        myriad_bin: args.servers.myriad_bin,
        statement_limit: args.statement_limit,
        file_limit: args.file_limit,
        command: std::env::args().collect::<Vec<_>>().join(" "),
    };
    let count = compat::select_tests(&opts).map(|t| t.len()).unwrap_or(0) as u64;
    let bar = indicatif::ProgressBar::new(count).with_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} files, {elapsed} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    // Without a terminal (CI logs) a line every 50 files says how far the run is.
    let quiet_bar = bar.is_hidden();
    let report = compat::run(&opts, &|name| {
        bar.inc(1);
        bar.set_message(name.to_string());
        if quiet_bar && bar.position() % 50 == 1 {
            eprintln!(
                "myriad-bench: compat: file {} of {count}: {name}",
                bar.position()
            );
        }
    });
    bar.finish_and_clear();
    let report = match report {
        Ok(report) => report,
        Err(e) => {
            eprintln!("myriad-bench: {e:#}");
            return ExitCode::FAILURE;
        }
    };
    println!("{}", report.markdown());
    match report.write(&opts.out_dir) {
        Ok((json, md)) => eprintln!(
            "myriad-bench: wrote {} and {}",
            json.display(),
            md.display()
        ),
        Err(e) => {
            eprintln!("myriad-bench: {e:#}");
            return ExitCode::FAILURE;
        }
    }
    if let Some(path) = args.write_baseline {
        if let Err(e) = std::fs::write(&path, report.baseline()) {
            eprintln!("myriad-bench: writing {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    if let Some(path) = args.baseline {
        let baseline = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("myriad-bench: reading {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        };
        let problems = report.regressions(&baseline);
        if !problems.is_empty() {
            eprintln!("myriad-bench: compat fell short of {}:", path.display());
            for p in &problems {
                eprintln!("  {p}");
            }
            return ExitCode::from(EXIT_ERROR_ROWS);
        }
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    // clap exits with 2 on a usage error; 2 means error rows here, so usage errors are 1.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match cli.command {
        Command::List => {
            list();
            ExitCode::SUCCESS
        }
        Command::Compat(args) => {
            let code = compat(args);
            while server::interrupted() {
                std::thread::park();
            }
            code
        }
        Command::Run(args) => {
            let code = run(*args);
            // An interrupted run ends in the handler, with status 130, once it has stopped
            // every server; finishing here first would report the killed cells instead.
            while server::interrupted() {
                std::thread::park();
            }
            code
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse_as_name_value_with_underscores() {
        assert_eq!(
            parse_setting("table-definition-cache=8000"),
            Ok(("table_definition_cache".into(), "8000".into()))
        );
        assert!(parse_setting("no_value").is_err());
        assert!(parse_setting("=1").is_err());
        assert!(parse_setting("bad name;=1").is_err());
    }

    #[test]
    fn the_command_line_parses() {
        let cli = Cli::try_parse_from([
            "myriad-bench",
            "run",
            "oltp",
            "--quick",
            "--target",
            "mariadb",
            "--threads",
            "1,16",
            "--engine",
            "myisam,innodb",
            "--set",
            "a=1",
            "--set",
            "b=2",
        ])
        .expect("parses");
        let Command::Run(args) = cli.command else {
            panic!("run expected");
        };
        assert_eq!(args.threads, Some(vec![1, 16]));
        assert_eq!(args.engines, Some(vec![Engine::Myisam, Engine::Innodb]));
        assert_eq!(args.settings.len(), 2);
        assert_eq!(args.target, TargetChoice::Mariadb);
        assert_eq!(args.repeat, 1, "one measurement per cell unless asked");
        let cli = Cli::try_parse_from(["myriad-bench", "run", "query-cache", "--repeat", "3"])
            .expect("parses");
        let Command::Run(args) = cli.command else {
            panic!("run expected");
        };
        assert_eq!(args.repeat, 3);
        assert!(
            Cli::try_parse_from(["myriad-bench", "run", "oltp", "--repeat", "0"]).is_err(),
            "at least one measurement"
        );
        let cli = Cli::try_parse_from([
            "myriad-bench",
            "run",
            "key-cache",
            "--server-cpus",
            "0",
            "--client-cpus",
            "1-3",
        ])
        .expect("parses");
        let Command::Run(args) = cli.command else {
            panic!("run expected");
        };
        assert_eq!(args.server_cpus.as_deref(), Some("0"));
        assert_eq!(args.client_cpus.as_deref(), Some("1-3"));
        assert!(
            Cli::try_parse_from(["myriad-bench", "run", "key-cache", "--server-cpus", "zero"])
                .is_err(),
            "a CPU list is checked"
        );
    }
}
