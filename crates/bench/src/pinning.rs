//! `--server-cpus` / `--client-cpus`: run the servers and sysbench on separate CPUs.
//!
//! On a small machine the load generator shares the server's cores, and its own cost per
//! transaction grows with its thread count (sysbench at 128 threads spends about twice its
//! 16-thread CPU per transaction), so a server's throughput "kept at 128 threads" measures the
//! client as much as the server. Pinning each side to its own CPUs (`taskset -c LIST`, which
//! execs the program: the process id stays the server's) separates the two.

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

/// Which side a process is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Server,
    Client,
}

/// CPU lists in `taskset -c` form (`0`, `0-7`, `0,2,4`); `None` leaves a side unpinned.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pinning {
    pub server: Option<String>,
    pub client: Option<String>,
}

static PINNING: OnceLock<Pinning> = OnceLock::new();

/// Set once, before the first process starts (later calls are ignored).
pub fn set(pinning: Pinning) {
    let _ = PINNING.set(pinning);
}

/// A command for `program` on `side`'s CPUs.
pub fn command(program: &Path, side: Side) -> Command {
    command_with(PINNING.get(), program, side)
}

fn command_with(pinning: Option<&Pinning>, program: &Path, side: Side) -> Command {
    let cpus = pinning.and_then(|p| match side {
        Side::Server => p.server.as_ref(),
        Side::Client => p.client.as_ref(),
    });
    match cpus {
        Some(cpus) => {
            let mut command = Command::new("taskset");
            command.arg("-c").arg(cpus).arg(program);
            command
        }
        None => Command::new(program),
    }
}

/// The CPU numbers of a `taskset -c` list (checked by [`parse_cpu_list`]).
fn cpu_numbers(list: &str) -> Vec<usize> {
    cpu_ranges(list)
        .unwrap_or_default()
        .into_iter()
        .flat_map(|(first, last)| first..=last)
        .collect()
}

/// The ranges of a `taskset -c` list (`0`, `0-7`, `0,2,4`), or None if it is not one.
fn cpu_ranges(list: &str) -> Option<Vec<(usize, usize)>> {
    let number = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<usize>().ok())
            .flatten()
    };
    list.split(',')
        .map(|part| {
            let (first, last) = part.split_once('-').unwrap_or((part, part));
            Some((number(first)?, number(last)?))
        })
        .collect()
}

/// Pin the calling thread to the client's CPUs, for a load generator that runs inside
/// myriad-bench (the Rust client loops); nothing when the client side is unpinned.
pub fn pin_this_thread_as_client() -> std::io::Result<()> {
    let Some(list) = PINNING.get().and_then(|p| p.client.as_deref()) else {
        return Ok(());
    };
    // SAFETY: a zeroed cpu_set_t is an empty set; CPU_SET writes within it for numbers below
    // CPU_SETSIZE, and sched_setaffinity reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for cpu in cpu_numbers(list) {
            if cpu < libc::CPU_SETSIZE as usize {
                libc::CPU_SET(cpu, &mut set);
            }
        }
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Checks a `taskset -c` CPU list: numbers and ranges separated by commas.
pub fn parse_cpu_list(text: &str) -> Result<String, String> {
    match cpu_ranges(text) {
        Some(_) => Ok(text.to_string()),
        None => Err(format!(
            "`{text}` is not a CPU list: give CPU numbers and ranges, e.g. 0 or 0-7 or 0,2,4"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(command: &Command) -> Vec<String> {
        std::iter::once(command.get_program())
            .chain(command.get_args())
            .map(|s| s.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn each_side_runs_under_taskset_with_its_own_list_or_plainly() {
        let pinning = Pinning {
            server: Some("0".into()),
            client: None,
        };
        let bin = Path::new("/usr/sbin/mariadbd");
        assert_eq!(
            argv(&command_with(Some(&pinning), bin, Side::Server)),
            ["taskset", "-c", "0", "/usr/sbin/mariadbd"]
        );
        assert_eq!(
            argv(&command_with(Some(&pinning), bin, Side::Client)),
            ["/usr/sbin/mariadbd"]
        );
        assert_eq!(
            argv(&command_with(None, bin, Side::Server)),
            ["/usr/sbin/mariadbd"]
        );
    }

    #[test]
    fn a_cpu_list_names_its_cpus() {
        assert_eq!(cpu_numbers("0"), [0]);
        assert_eq!(cpu_numbers("0,2,4-6"), [0, 2, 4, 5, 6]);
    }

    #[test]
    fn cpu_lists_are_checked() {
        for good in ["0", "1-15", "0,2,4-7"] {
            assert_eq!(parse_cpu_list(good).as_deref(), Ok(good));
        }
        for bad in ["", "a", "1-", "-3", "1,,2", "0-1-2", "0 1"] {
            assert!(parse_cpu_list(bad).is_err(), "{bad:?} accepted");
        }
    }
}
