//! The myriad server: command-line and option-file handling, networking (TCP and unix
//! socket), one session per connection bridging `myriad_protocol` to `myriad_sql`, shutdown.

/// Entry point of the `myriad` binary.
pub fn main() -> std::process::ExitCode {
    eprintln!("myriad: not built yet");
    std::process::ExitCode::FAILURE
}
