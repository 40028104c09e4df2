//! What the record says about the machine a run was taken on.

use serde::{Deserialize, Serialize};

/// The machine: enough to tell two records' machines apart and to judge their figures.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Machine {
    pub hostname: String,
    pub os: String,
    pub kernel: String,
    pub cpu_model: String,
    /// Logical CPUs this process may run on.
    pub cores: usize,
    pub memory_bytes: u64,
    /// Soft limit on open file descriptors (RLIMIT_NOFILE) the servers inherit.
    pub fd_limit: u64,
    /// 1-minute load average when the run started: these machines are shared, and a high
    /// load means the absolute figures are low (the ratios within one run still hold).
    pub load_average_1m_at_start: f64,
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// The value after `key` and ':' on the first line of `text` that starts with `key`.
fn field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim())
}

impl Machine {
    /// Reads the machine's description from /proc and /etc.
    pub fn detect() -> Machine {
        let cpuinfo = read("/proc/cpuinfo");
        let meminfo = read("/proc/meminfo");
        let os_release = read("/etc/os-release");
        let memory_kb: u64 = field(&meminfo, "MemTotal")
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // Safety: getrlimit writes into the struct we pass; no other memory is touched.
        let fd_limit = if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0 {
            limit.rlim_cur
        } else {
            0
        };
        Machine {
            hostname: read("/proc/sys/kernel/hostname").trim().to_string(),
            os: os_release
                .lines()
                .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                .map(|v| v.trim_matches('"').to_string())
                .unwrap_or_default(),
            kernel: format!(
                "{} {}",
                read("/proc/sys/kernel/ostype").trim(),
                read("/proc/sys/kernel/osrelease").trim()
            ),
            cpu_model: field(&cpuinfo, "model name")
                .unwrap_or("unknown")
                .to_string(),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            memory_bytes: memory_kb * 1024,
            fd_limit,
            load_average_1m_at_start: read("/proc/loadavg")
                .split_whitespace()
                .next()
                .and_then(|v| v.parse().ok())
                .unwrap_or(0.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_this_linux_machine() {
        let m = Machine::detect();
        assert!(m.cores >= 1);
        assert!(m.memory_bytes > 64 << 20, "memory {}", m.memory_bytes);
        assert!(m.kernel.starts_with("Linux "), "kernel {}", m.kernel);
        assert!(m.fd_limit > 0);
    }

    #[test]
    fn field_reads_the_first_matching_line() {
        let text = "model name\t: Xeon\nmodel name\t: Other\nMemTotal:  100 kB\n";
        assert_eq!(field(text, "model name"), Some("Xeon"));
        assert_eq!(field(text, "MemTotal"), Some("100 kB"));
        assert_eq!(field(text, "missing"), None);
    }
}
