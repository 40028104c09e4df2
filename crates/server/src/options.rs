//! Command-line and option-file handling.
//!
//! Sources, later ones winning: the `[mysqld]` and `[myriad]` groups of `--defaults-file`
//! (in file order), then the command line. Names may use dashes or underscores and may
//! carry MySQL's `loose-` prefix. The server's own options (`--port`, `--datadir`, ...) are
//! parsed by clap; every other `--name=value` is a system variable, handed to the engine in
//! order, which validates names and values. A bare `--name` means `ON`, as in MySQL.

use clap::{value_parser, Arg, ArgAction, ArgMatches, Command};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub const DEFAULT_PORT: u16 = 3307;
pub const DEFAULT_BIND_ADDRESS: &str = "127.0.0.1";
pub const DEFAULT_DATADIR: &str = "./data";
pub const DEFAULT_MAX_CONNECTIONS: u64 = 151;

/// The server's options after all sources are merged.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerOptions {
    pub port: u16,
    pub bind_address: String,
    pub socket: Option<PathBuf>,
    pub datadir: PathBuf,
    /// Set only when given; the engine's max_connections variable has the default.
    pub max_connections: Option<u64>,
    pub log_error: Option<PathBuf>,
    /// System variables (`name`, `value`), names with underscores, in the order given.
    pub variables: Vec<(String, String)>,
}

/// Why the options do not start a server.
#[derive(Debug)]
pub enum OptionsError {
    /// `--help` or `--version`: print this and exit successfully.
    Informational(String),
    Invalid(String),
}

/// Worker threads when `thread_pool_size` is 0 or not given: one per core this process may
/// run on (its CPU affinity and cgroup quota), as MariaDB's thread pool sizes itself. More
/// workers than cores left cores idle while connections waited: on 16 cores with the server
/// on 4 of them, 16 workers served 5,163 / 7,252 oltp_read_only TPS (cache off / on, 16
/// client threads) using 2.2 / 1.4 of its cores, and 4 workers 9,508 / 18,709 using 3.9 / 3.7
/// (measured with the query cache off and on). Four per core had been tried on 2 shared
/// cores, where it kept myriad's share of the CPU against a client on the same cores.
pub fn default_thread_pool_size(cores: usize) -> usize {
    cores.max(1)
}

/// The value of system variable `name` the options give last (a later one wins).
fn last_variable<'a>(options: &'a ServerOptions, name: &str) -> Option<&'a str> {
    options
        .variables
        .iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, value)| value.as_str())
}

/// The `thread_pool_size` the options ask for (the last one given), 0 meaning the default.
pub fn thread_pool_size(options: &ServerOptions, cores: usize) -> Result<usize, String> {
    let asked = match last_variable(options, "thread_pool_size") {
        None => 0,
        Some(value) => value.trim().parse::<usize>().map_err(|_| {
            format!("thread_pool_size must be a whole number of threads, not '{value}'")
        })?,
    };
    match asked {
        0 => Ok(default_thread_pool_size(cores)),
        n if n > 1024 => Err(format!(
            "thread_pool_size {n} is over the most, 1024 worker threads"
        )),
        n => Ok(n),
    }
}

/// The least stack a statement thread gets, whatever `thread_stack` asks: statements refuse
/// to recurse with less than `myriad_sql::depth::STACK_RED_ZONE_BYTES` left, so a smaller
/// stack would refuse ordinary statements.
pub const MIN_THREAD_STACK_BYTES: usize = 1 << 20;

/// The stack of each thread that runs statements: `thread_stack` if given (the last one,
/// in bytes, at least [`MIN_THREAD_STACK_BYTES`]), else `myriad_sql::depth::THREAD_STACK_BYTES`.
pub fn thread_stack_bytes(options: &ServerOptions) -> Result<usize, String> {
    match last_variable(options, "thread_stack") {
        None => Ok(myriad_sql::depth::THREAD_STACK_BYTES),
        Some(value) => match value.trim().parse::<usize>() {
            Ok(bytes) => Ok(bytes.max(MIN_THREAD_STACK_BYTES)),
            Err(_) => Err(format!(
                "thread_stack must be a whole number of bytes, not '{value}'"
            )),
        },
    }
}

/// Options clap parses, by their underscore names.
const SERVER_OPTIONS: &[&str] = &[
    "port",
    "bind_address",
    "socket",
    "datadir",
    "max_connections",
    "defaults_file",
    "log_error",
    "help",
    "version",
];

/// Whether `name` (underscores) is one of the server's own options.
pub fn is_server_option(name: &str) -> bool {
    SERVER_OPTIONS.contains(&name)
}

fn command(variables_help: &str) -> Command {
    Command::new("myriad")
        .about("A MySQL-compatible server whose caches stay fast with a myriad of tables")
        .version(env!("CARGO_PKG_VERSION"))
        .args_override_self(true)
        .disable_help_flag(true)
        .arg(
            Arg::new("help")
                .long("help")
                .short('?')
                .action(ArgAction::Help)
                .help("Print this help: every option with its default, then the system variables"),
        )
        .arg(
            Arg::new("port")
                .long("port")
                .short('P')
                .value_parser(value_parser!(u16))
                .default_value("3307")
                .help("TCP port to listen on (3307, so that it runs beside a MySQL on 3306)"),
        )
        .arg(
            Arg::new("bind_address")
                .long("bind-address")
                .default_value(DEFAULT_BIND_ADDRESS)
                .help("Address to listen on; 0.0.0.0 or * for all IPv4 interfaces, :: for all"),
        )
        .arg(
            Arg::new("socket")
                .long("socket")
                .short('S')
                .value_parser(value_parser!(PathBuf))
                .help("Also listen on this unix socket path [default: none]"),
        )
        .arg(
            Arg::new("datadir")
                .long("datadir")
                .short('h')
                .value_parser(value_parser!(PathBuf))
                .default_value(DEFAULT_DATADIR)
                .help("Data directory, created if missing (accounts, catalog, tables)"),
        )
        .arg(
            Arg::new("max_connections")
                .long("max-connections")
                .value_parser(value_parser!(u64))
                .help("Most client connections at once; one more gets error 1040 [default: 151]"),
        )
        .arg(
            Arg::new("defaults_file")
                .long("defaults-file")
                .value_parser(value_parser!(PathBuf))
                .help("Read options from this MySQL option file ([mysqld] and [myriad] groups) [default: none]"),
        )
        .arg(
            Arg::new("log_error")
                .long("log-error")
                .value_parser(value_parser!(PathBuf))
                .help("Write the server log to this file (appending) [default: standard error]"),
        )
        .after_help(variables_help.to_string())
}

/// `--name=value`, `--name value` (server options only) or `--name`, split and normalised.
fn normalise_name(raw: &str) -> String {
    let name = raw.replace('-', "_");
    let name = name
        .strip_prefix("loose_")
        .map(str::to_string)
        .unwrap_or(name);
    name.to_ascii_lowercase()
}

/// Read the `[mysqld]` and `[myriad]` groups of a MySQL option file as (name, value).
pub fn read_option_file(path: &Path) -> Result<Vec<(String, Option<String>)>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse_option_file(&text, path.parent().unwrap_or(Path::new(".")), 0)
}

fn parse_option_file(
    text: &str,
    base: &Path,
    depth: usize,
) -> Result<Vec<(String, Option<String>)>, String> {
    let mut out = Vec::new();
    let mut in_group = false;
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(include) = line.strip_prefix("!include ") {
            // MySQL's !include: the included file's groups count as if written here.
            if depth > 8 {
                return Err(String::from("option files include each other too deeply"));
            }
            let path = base.join(include.trim());
            let included = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            out.extend(parse_option_file(&included, base, depth + 1)?);
            continue;
        }
        if line.starts_with('!') {
            continue;
        }
        if let Some(group) = line.strip_prefix('[') {
            let group = group
                .strip_suffix(']')
                .ok_or_else(|| format!("line {}: bad group header", number + 1))?;
            in_group = matches!(group.trim(), "mysqld" | "myriad");
            continue;
        }
        if !in_group {
            continue;
        }
        let (name, value) = match line.split_once('=') {
            Some((name, value)) => {
                let value = value.trim();
                // A trailing comment after an unquoted value.
                let value = match value.find(" #") {
                    Some(at) if !value.starts_with(['"', '\'']) => value[..at].trim_end(),
                    _ => value,
                };
                let unquoted = value
                    .strip_prefix('"')
                    .and_then(|v| v.strip_suffix('"'))
                    .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
                    .unwrap_or(value);
                (name.trim(), Some(unquoted.to_string()))
            }
            None => (line, None),
        };
        out.push((normalise_name(name), value));
    }
    Ok(out)
}

/// Split argv into clap's part and system variables; `--defaults-file` is read here.
pub fn parse<I: IntoIterator<Item = OsString>>(
    args: I,
    variables_help: &str,
) -> Result<ServerOptions, OptionsError> {
    let args: Vec<String> = args
        .into_iter()
        .skip(1)
        .map(|a| {
            a.into_string()
                .map_err(|a| OptionsError::Invalid(format!("argument is not UTF-8: {a:?}")))
        })
        .collect::<Result<_, _>>()?;

    // Command-line entries as (name, value), keeping the raw form for clap.
    let mut cli: Vec<(String, Option<String>)> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let Some(body) = arg.strip_prefix("--") else {
            if let Some(short) = arg.strip_prefix('-').filter(|s| !s.is_empty()) {
                // Short options: -P 3307, -P3307, -S path, -h dir, -?
                let (flag, rest) = short.split_at(1);
                let name = match flag {
                    "P" => "port",
                    "S" => "socket",
                    "h" => "datadir",
                    "?" => "help",
                    "V" => "version",
                    _ => return Err(OptionsError::Invalid(format!("unknown option '{arg}'"))),
                };
                let value = if matches!(name, "help" | "version") {
                    None
                } else if !rest.is_empty() {
                    Some(rest.to_string())
                } else if i < args.len() {
                    i += 1;
                    Some(args[i - 1].clone())
                } else {
                    return Err(OptionsError::Invalid(format!(
                        "option '{arg}' needs a value"
                    )));
                };
                cli.push((name.to_string(), value));
                continue;
            }
            return Err(OptionsError::Invalid(format!(
                "unexpected argument '{arg}'"
            )));
        };
        let (name, value) = match body.split_once('=') {
            Some((name, value)) => (normalise_name(name), Some(value.to_string())),
            None => (normalise_name(body), None),
        };
        let is_server_option = SERVER_OPTIONS.contains(&name.as_str());
        let value = match value {
            None if is_server_option && !matches!(name.as_str(), "help" | "version") => {
                // `--port 3307`: the value is the next argument.
                if i < args.len() {
                    i += 1;
                    Some(args[i - 1].clone())
                } else {
                    return Err(OptionsError::Invalid(format!(
                        "option '--{body}' needs a value"
                    )));
                }
            }
            other => other,
        };
        cli.push((name, value));
    }

    let mut entries = Vec::new();
    if let Some((_, Some(path))) = cli.iter().rev().find(|(name, _)| name == "defaults_file") {
        entries.extend(read_option_file(Path::new(path)).map_err(OptionsError::Invalid)?);
    }
    entries.extend(cli);

    let mut clap_args = vec![String::from("myriad")];
    let mut variables = Vec::new();
    for (name, value) in entries {
        if SERVER_OPTIONS.contains(&name.as_str()) {
            clap_args.push(format!("--{}", name.replace('_', "-")));
            if let Some(value) = value {
                clap_args.push(value);
            }
        } else {
            variables.push((name, value.unwrap_or_else(|| String::from("ON"))));
        }
    }
    let matches = match command(variables_help).try_get_matches_from(clap_args) {
        Ok(matches) => matches,
        Err(e)
            if matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) =>
        {
            return Err(OptionsError::Informational(e.to_string()))
        }
        Err(e) => return Err(OptionsError::Invalid(e.to_string())),
    };
    Ok(from_matches(&matches, variables))
}

fn from_matches(matches: &ArgMatches, mut variables: Vec<(String, String)>) -> ServerOptions {
    let max_connections = matches.get_one::<u64>("max_connections").copied();
    if let Some(max) = max_connections {
        // max_connections is also a system variable: the engine reports and checks it.
        variables.push((String::from("max_connections"), max.to_string()));
    }
    ServerOptions {
        port: matches
            .get_one::<u16>("port")
            .copied()
            .unwrap_or(DEFAULT_PORT),
        bind_address: matches
            .get_one::<String>("bind_address")
            .cloned()
            .unwrap_or_else(|| DEFAULT_BIND_ADDRESS.into()),
        socket: matches.get_one::<PathBuf>("socket").cloned(),
        datadir: matches
            .get_one::<PathBuf>("datadir")
            .cloned()
            .unwrap_or_else(|| DEFAULT_DATADIR.into()),
        max_connections,
        log_error: matches.get_one::<PathBuf>("log_error").cloned(),
        variables,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_pool_size_defaults_per_core_and_takes_the_last_value() {
        let options = parse_args(&[]).unwrap();
        assert_eq!(thread_pool_size(&options, 2), Ok(2));
        assert_eq!(thread_pool_size(&options, 16), Ok(16));
        let options = parse_args(&["--thread-pool-size=3", "--thread_pool_size=5"]).unwrap();
        assert_eq!(thread_pool_size(&options, 2), Ok(5));
        let options = parse_args(&["--thread-pool-size=0"]).unwrap();
        assert_eq!(thread_pool_size(&options, 1), Ok(1));
        assert_eq!(thread_pool_size(&options, 0), Ok(1));
        let options = parse_args(&["--thread-pool-size=many"]).unwrap();
        assert!(thread_pool_size(&options, 2)
            .unwrap_err()
            .contains("'many'"));
        let options = parse_args(&["--thread-pool-size=5000"]).unwrap();
        assert!(thread_pool_size(&options, 2).unwrap_err().contains("1024"));
    }

    fn parse_args(args: &[&str]) -> Result<ServerOptions, OptionsError> {
        parse(
            std::iter::once("myriad")
                .chain(args.iter().copied())
                .map(OsString::from),
            "",
        )
    }

    #[test]
    fn defaults_apply() {
        let options = parse_args(&[]).unwrap();
        assert_eq!(options.port, 3307);
        assert_eq!(options.bind_address, "127.0.0.1");
        assert_eq!(options.datadir, PathBuf::from("./data"));
        assert_eq!(options.socket, None);
        assert!(options.variables.is_empty());
    }

    #[test]
    fn server_options_and_variables_split() {
        let options = parse_args(&[
            "--port=4000",
            "--bind_address",
            "0.0.0.0",
            "--max-connections=1100",
            "--wait-timeout=60",
            "--loose-sql_mode=ANSI",
            "--skip_name_resolve",
            "-S/tmp/x.sock",
        ])
        .unwrap();
        assert_eq!(options.port, 4000);
        assert_eq!(options.bind_address, "0.0.0.0");
        assert_eq!(options.max_connections, Some(1100));
        assert_eq!(options.socket, Some(PathBuf::from("/tmp/x.sock")));
        assert_eq!(
            options.variables,
            vec![
                ("wait_timeout".to_string(), "60".to_string()),
                ("sql_mode".to_string(), "ANSI".to_string()),
                ("skip_name_resolve".to_string(), "ON".to_string()),
                ("max_connections".to_string(), "1100".to_string()),
            ]
        );
    }

    #[test]
    fn option_file_groups_and_command_line_precedence() {
        let dir = std::env::temp_dir().join(format!("myriad-options-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("my.cnf");
        std::fs::write(
            &file,
            "# comment\n[client]\nport=1\n[mysqld]\nport = 4001\nmax-allowed-packet=\"16M\"\nskip-name-resolve\n\
             [myriad]\nbind_address=::1 # trailing comment\n[mysqldump]\nquick\n",
        )
        .unwrap();
        let options = parse_args(&[
            &format!("--defaults-file={}", file.display()),
            "--port=4002",
        ])
        .unwrap();
        assert_eq!(options.port, 4002, "the command line wins over the file");
        assert_eq!(options.bind_address, "::1");
        assert_eq!(
            options.variables,
            vec![
                ("max_allowed_packet".to_string(), "16M".to_string()),
                ("skip_name_resolve".to_string(), "ON".to_string())
            ]
        );
        let from_file = parse_args(&[&format!("--defaults-file={}", file.display())]).unwrap();
        assert_eq!(from_file.port, 4001);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn help_and_errors() {
        match parse(
            ["myriad", "--help"].map(OsString::from),
            "SYSTEM VARIABLES: x",
        ) {
            Err(OptionsError::Informational(text)) => {
                assert!(text.contains("--port"), "{text}");
                assert!(text.contains("3307"), "{text}");
                assert!(text.contains("--defaults-file"), "{text}");
                assert!(text.contains("SYSTEM VARIABLES: x"), "{text}");
            }
            other => panic!("expected help, got {other:?}"),
        }
        for bad in [
            "--port=notanumber",
            "stray",
            "--port",
            "--defaults-file=/nonexistent/my.cnf",
        ] {
            assert!(
                matches!(parse_args(&[bad]), Err(OptionsError::Invalid(_))),
                "{bad} is refused"
            );
        }
    }
}
